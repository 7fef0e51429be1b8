/* Emulator edge cases: faults end the run as they end the native one and
 * are explained on stderr, unimplemented instructions are named, the trace
 * survives a fault, self-modifying code runs the new code, the sandbox
 * confines writes, --stdin and --max-insts work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/trace.h"

#define CAP (1u << 20)

struct run {
    char out[CAP], err[CAP];
    int status;
};

static void slurp(int fd, char *buf)
{
    size_t n = 0;
    ssize_t k;
    while (n + 1 < CAP && (k = read(fd, buf + n, CAP - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = 0;
}

/* Runs ARGV capturing stdout and stderr (both are small here). */
static struct run *run_argv(char *const argv[])
{
    struct run *r = calloc(1, sizeof *r);
    char o[] = "/tmp/cgm_x86_edge_o_XXXXXX", e[] = "/tmp/cgm_x86_edge_e_XXXXXX";
    int fo = mkstemp(o), fe = mkstemp(e);
    assert_non_null(r);
    assert_true(fo >= 0 && fe >= 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(fo, 0, SEEK_SET);
    lseek(fe, 0, SEEK_SET);
    slurp(fo, r->out);
    slurp(fe, r->err);
    close(fo);
    close(fe);
    unlink(o);
    unlink(e);
    return r;
}

static char guest[4096], tracegen[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/edge_cases", getenv("CGM_BUILD"));
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    return 0;
}

static void fault_like_native(const char *mode, int signal_status, const char *why)
{
    char *nat[] = { guest, (char *)mode, NULL };
    char *emu[] = { tracegen, "--no-trace", "--", guest, (char *)mode, NULL };
    struct run *n = run_argv(nat), *e = run_argv(emu);
    assert_int_equal(n->status, signal_status);
    assert_int_equal(e->status, signal_status);
    if (!strstr(e->err, why))
        print_error("stderr was: %s\n", e->err);
    assert_non_null(strstr(e->err, why));
    free(n);
    free(e);
}

/* test_NAME: the guest's MODE ends with STATUS natively and under tracegen, which says WHY. */
#define FAULT_TEST(name, mode, status, why) \
    static void test_##name(void **state) { (void)state; fault_like_native(mode, status, why); }
FAULT_TEST(segv, "segv", 128 + 11, "invalid write at address 0x0")
FAULT_TEST(divide_error, "div0", 128 + 8, "divide error")
FAULT_TEST(ud2, "ud2", 128 + 4, "ud2")
FAULT_TEST(abort, "abort", 128 + 6, "signal 6")

static void test_unimplemented_is_named(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--", guest, "avx512", NULL };
    struct run *e = run_argv(emu);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "unimplemented instruction"));
    assert_non_null(strstr(e->err, "62 f1 7d 48 ef c0"));
    assert_non_null(strstr(e->err, "vpxord zmm0"));
    /* and its extension, with what to do about it */
    assert_non_null(strstr(e->err, "(AVX-512, beyond the x86-64-v3 processor"));
    assert_non_null(strstr(e->err, "-march=x86-64-v3 or lower"));
    free(e);
}

static void test_trace_survives_fault(void **state)
{
    (void)state;
    char trace[] = "/tmp/cgm_x86_edge_t_XXXXXX";
    int fd = mkstemp(trace);
    close(fd);
    char *emu[] = { tracegen, "--quiet", "-o", trace, "--", guest, "segv", NULL };
    struct run *e = run_argv(emu);
    assert_int_equal(e->status, 128 + 11);
    char err[512];
    assert_int_equal(cgm_trace_verify(trace, err, sizeof err), 0);
    struct cgm_reader *r = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(r);
    assert_true(cgm_reader_complete(r));
    long si = cgm_reader_find_stream(r, 1000);
    assert_true(si >= 0);
    assert_true(cgm_reader_stream(r, (size_t)si)->totals.instructions > 100);
    cgm_reader_close(r);
    unlink(trace);
    free(e);
}

static void same_as_native(char *mode)
{
    char *nat[] = { guest, mode, NULL };
    char *emu[] = { tracegen, "--no-trace", "--", guest, mode, NULL };
    struct run *n = run_argv(nat), *e = run_argv(emu);
    assert_int_equal(n->status, 0);
    assert_int_equal(e->status, 0);
    assert_string_equal(n->out, e->out);
    free(n);
    free(e);
}

static void test_self_modifying_code(void **state)
{
    (void)state;
    same_as_native("smc");
}

static void test_virtual_time_advances(void **state)
{
    (void)state;
    same_as_native("time");
}

static void test_sandbox_writes(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgm_x86_edge_d_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char inside[4200], outside[4200];
    snprintf(inside, sizeof inside, "%s/inside.txt", dir);
    snprintf(outside, sizeof outside, "%s/../cgm_x86_edge_outside_%d.txt", dir, (int)getpid());
    char *ok[] = { tracegen, "--no-trace", "--allow-write", dir, "--", guest, "write", inside, NULL };
    struct run *a = run_argv(ok);
    assert_int_equal(a->status, 0);
    struct stat st;
    assert_int_equal(stat(inside, &st), 0);
    assert_int_equal(st.st_size, (long)strlen("written by the guest\n"));
    char *no[] = { tracegen, "--no-trace", "--allow-write", dir, "--", guest, "write", outside, NULL };
    struct run *b = run_argv(no);
    assert_int_equal(b->status, 1);
    assert_non_null(strstr(b->out, "refused"));
    assert_int_equal(stat(outside, &st), -1);
    char *none[] = { tracegen, "--no-trace", "--", guest, "write", inside, NULL };
    struct run *c = run_argv(none);
    assert_int_equal(c->status, 1); /* no --allow-write: nothing is writable */
    unlink(inside);
    rmdir(dir);
    free(a);
    free(b);
    free(c);
}

static void test_stdin_file(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/traces/x86/hello.c", getenv("CGM_ROOT"));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    char *emu[] = { tracegen, "--no-trace", "--stdin", path, "--", guest, "stdin", NULL };
    struct run *e = run_argv(emu);
    char want[64];
    snprintf(want, sizeof want, "stdin %ld bytes\n", (long)st.st_size);
    assert_string_equal(e->out, want);
    free(e);
}

static void test_max_insts(void **state)
{
    (void)state;
    char *emu[] = { tracegen, "--no-trace", "--max-insts", "1000", "--", guest, "time", NULL };
    struct run *e = run_argv(emu);
    assert_int_equal(e->status, 70);
    assert_non_null(strstr(e->err, "instruction limit 1000"));
    free(e);
}

static void test_help_documents_every_option(void **state)
{
    (void)state;
    char *h[] = { tracegen, "--help", NULL };
    struct run *e = run_argv(h);
    assert_int_equal(e->status, 0);
    const char *opts[] = { "--output", "--no-trace", "--roi-only", "--max-insts", "--quantum",
                           "--stdin", "--allow-write", "--strict", "--seed", "--quiet",
                           "--stats", "--help" };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        assert_non_null(strstr(e->out, opts[i]));
    free(e);
    char *bad[] = { tracegen, "--quantum", "zero", "--no-trace", "--", guest, NULL };
    e = run_argv(bad);
    assert_int_equal(e->status, 2);
    assert_non_null(strstr(e->err, "--quantum"));
    free(e);
}

/* Hostile executables: a truncated file, a segment past the end of the
 * file and a segment claiming terabytes are refused at once, by name. */
static void test_hostile_executables(void **state)
{
    (void)state;
    FILE *f = fopen(guest, "rb");
    assert_non_null(f);
    static uint8_t elf[1 << 16];
    size_t n = fread(elf, 1, sizeof elf, f);
    fclose(f);
    assert_true(n > 64 + 56 * 2);
    uint16_t phnum;
    uint64_t phoff;
    memcpy(&phoff, elf + 32, 8);
    memcpy(&phnum, elf + 56, 2);
    struct { size_t keep; int field; uint64_t value; const char *why; } cases[] = {
        { 100, -1, 0, "no program headers" },
        { n, 32, 0, "outside the file" },      /* p_offset of a PT_LOAD */
        { n, 40, 1ull << 42, "loadable segments of more than" }, /* p_memsz */
    };
    for (size_t i = 0; i < 3; i++) {
        static uint8_t copy[1 << 16];
        memcpy(copy, elf, n);
        if (cases[i].field >= 0) {
            for (uint16_t k = 0; k < phnum; k++) {
                uint8_t *ph = copy + phoff + 56u * k;
                uint32_t type;
                memcpy(&type, ph, 4);
                if (type != 1)
                    continue; /* PT_LOAD only */
                uint64_t v = cases[i].field == 32 ? 0x7000000000000000ull : cases[i].value;
                memcpy(ph + (cases[i].field == 32 ? 8 : 40), &v, 8);
                break;
            }
        }
        char path[] = "/tmp/cgm_x86_edge_elf_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, copy, cases[i].keep), (ssize_t)cases[i].keep);
        close(fd);
        char *emu[] = { tracegen, "--no-trace", "--", path, NULL };
        struct run *e = run_argv(emu);
        assert_int_equal(e->status, 2);
        if (!strstr(e->err, cases[i].why))
            print_error("case %zu: stderr was: %s\n", i, e->err);
        assert_non_null(strstr(e->err, cases[i].why));
        assert_non_null(strstr(e->err, path));
        free(e);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segv),
        cmocka_unit_test(test_divide_error),
        cmocka_unit_test(test_ud2),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_unimplemented_is_named),
        cmocka_unit_test(test_trace_survives_fault),
        cmocka_unit_test(test_self_modifying_code),
        cmocka_unit_test(test_virtual_time_advances),
        cmocka_unit_test(test_sandbox_writes),
        cmocka_unit_test(test_stdin_file),
        cmocka_unit_test(test_max_insts),
        cmocka_unit_test(test_help_documents_every_option),
        cmocka_unit_test(test_hostile_executables),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
