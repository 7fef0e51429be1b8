/* Guest programs under tracegen behave as they do natively: the same
 * stdout and the same exit status. The native run is the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/run_program.h"
#include "tests/unit/temp_file.h"
#include "tests/unit/x86_isa.h"

#define OUT_MAX (4u << 20)

struct run {
    char *out;
    size_t len;
    int status;   /* exit status, or 128+signal */
};

/* Runs ARGV with stdout captured and stderr discarded. */
static struct run run_argv(char *const argv[])
{
    struct run r = { malloc(OUT_MAX), 0, -1 };
    int pipefd[2];
    assert_non_null(r.out);
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], 1);
        FILE *devnull = freopen("/dev/null", "w", stderr);
        (void)devnull;
        close(pipefd[0]);
        close(pipefd[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pipefd[1]);
    ssize_t k;
    while ((k = read(pipefd[0], r.out + r.len, OUT_MAX - r.len)) > 0)
        r.len += (size_t)k;
    close(pipefd[0]);
    int st;
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

static char *path_in(const char *env, const char *fmt, const char *name)
{
    const char *base = getenv(env);
    char *p = malloc(4096);
    assert_non_null(base);
    assert_non_null(p);
    snprintf(p, 4096, "%s/", base);
    size_t n = strlen(p);
    snprintf(p + n, 4096 - n, fmt, name);
    return p;
}

/* Compares a native run of the guest LIBC/NAME with ARGS against tracegen. */
static void compare(const char *libc, const char *name, const char *arg1)
{
    char fmt[64];
    snprintf(fmt, sizeof fmt, "traces/x86/%s/%%s", libc);
    char *guest = path_in("CGM_BUILD", fmt, name);
    char *tracegen = path_in("CGM_BIN", "%s", "tracegen");
    char *native_argv[] = { guest, (char *)arg1, NULL };
    char *emu_argv[] = { tracegen, "--no-trace", "--quiet", "--", guest, (char *)arg1, NULL };
    struct run n = run_argv(native_argv);
    struct run e = run_argv(emu_argv);
    if (n.len != e.len || memcmp(n.out, e.out, n.len) != 0)
        print_error("%s/%s: output differs (native %zu bytes, tracegen %zu bytes)\n", libc,
                    name, n.len, e.len);
    assert_true(n.len > 0);
    assert_int_equal(n.len, e.len);
    assert_memory_equal(n.out, e.out, n.len);
    assert_int_equal(n.status, e.status);
    free(n.out);
    free(e.out);
    free(guest);
    free(tracegen);
}

static char *source_file(void)
{
    return path_in("CGM_ROOT", "%s", "traces/x86/file_read.c");
}

/* test_NAME_musl and test_NAME_glibc: the guest NAME built with each libc, given ARG1. */
#define BOTH_LIBCS(name, arg1) \
    static void test_##name##_musl(void **state) { (void)state; compare("musl", #name, arg1); } \
    static void test_##name##_glibc(void **state) { (void)state; compare("glibc", #name, arg1); }
BOTH_LIBCS(hello, "world")
BOTH_LIBCS(strings, NULL)
BOTH_LIBCS(malloc_qsort, NULL)
BOTH_LIBCS(printf_float, NULL)
BOTH_LIBCS(matmul_mt, NULL)
BOTH_LIBCS(sync_mt, NULL)
BOTH_LIBCS(backprop, NULL)
BOTH_LIBCS(lud, NULL)
BOTH_LIBCS(kmeans, NULL)
BOTH_LIBCS(hotspot, NULL)
BOTH_LIBCS(nw, NULL)
BOTH_LIBCS(bfs, NULL)
BOTH_LIBCS(fenv, NULL)
BOTH_LIBCS(waits, NULL)
BOTH_LIBCS(startup, NULL)
BOTH_LIBCS(timerfd, NULL)
BOTH_LIBCS(sigwait, NULL)
BOTH_LIBCS(sigqueue, NULL)

/* C++ exceptions and threads: libstdc++ is glibc's only. */
static void test_cxx_threads_glibc(void **state) { (void)state; compare("glibc", "cxx_threads", NULL); }

/* avx2_kernels runs x86-64-v3 instructions unconditionally: natively only
 * on a host that has them. Under tracegen it runs whatever CPUID says. */
static void compare_v3(const char *libc)
{
    static const enum x86_isa_feature need[] = { X86_ISA_AVX2, X86_ISA_FMA, X86_ISA_F16C,
                                                 X86_ISA_BMI1, X86_ISA_BMI2, X86_ISA_LZCNT,
                                                 X86_ISA_MOVBE };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!x86_isa_host_has(need[i])) {
            print_message("skipped: the host processor is not x86-64-v3\n");
            skip();
        }
    compare(libc, "avx2_kernels", "48");
}
static void test_avx2_kernels_musl(void **state) { (void)state; compare_v3("musl"); }
static void test_avx2_kernels_glibc(void **state) { (void)state; compare_v3("glibc"); }

/* file_read reads the file named by its argument: its own source. */
static void compare_file_read(const char *libc)
{
    char *src = source_file();
    compare(libc, "file_read", src);
    free(src);
}
static void test_file_read_musl(void **state) { (void)state; compare_file_read("musl"); }
static void test_file_read_glibc(void **state) { (void)state; compare_file_read("glibc"); }

/* The scheduler's slice length changes the interleaving, never the result. */
static void test_sync_mt_any_quantum(void **state)
{
    (void)state;
    char *guest = path_in("CGM_BUILD", "traces/x86/musl/%s", "sync_mt");
    char *tracegen = path_in("CGM_BIN", "%s", "tracegen");
    char *native_argv[] = { guest, NULL };
    struct run n = run_argv(native_argv);
    const char *quanta[] = { "1", "3", "997" };
    for (int i = 0; i < 3; i++) {
        char *emu_argv[] = { tracegen, "--no-trace", "--quiet", "--quantum", (char *)quanta[i],
                             "--", guest, NULL };
        struct run e = run_argv(emu_argv);
        assert_int_equal(e.status, n.status);
        assert_int_equal(e.len, n.len);
        assert_memory_equal(e.out, n.out, n.len);
        free(e.out);
    }
    free(n.out);
    free(guest);
    free(tracegen);
}

/* Dynamically linked builds (each compiler's default: PIE with glibc's
 * ld-linux, musl's own loader): tracegen loads the host's interpreter,
 * which maps the host's libraries. */
#define DYNAMIC(name, arg1) \
    static void test_##name##_musl_dyn(void **state) { (void)state; compare("musl-dyn", #name, arg1); } \
    static void test_##name##_glibc_dyn(void **state) { (void)state; compare("glibc-dyn", #name, arg1); }
DYNAMIC(hello, "world")
DYNAMIC(strings, NULL)
DYNAMIC(malloc_qsort, NULL)
DYNAMIC(printf_float, NULL)
DYNAMIC(matmul_mt, NULL)
DYNAMIC(sync_mt, NULL)
DYNAMIC(fenv, NULL)
DYNAMIC(startup, NULL)
static void test_file_read_glibc_dyn(void **state) { (void)state; compare_file_read("glibc-dyn"); }

/* A copy of the dynamically linked hello whose interpreter is INTERP (at
 * most as long as the interpreter's name it replaces; NUL-padded, as the
 * kernel reads it). Returns the copy's path. */
static const char *with_interpreter(const char *interp)
{
    char *guest = path_in("CGM_BUILD", "traces/x86/glibc-dyn/%s", "hello");
    FILE *f = fopen(guest, "rb");
    assert_non_null(f);
    char *img = malloc(OUT_MAX);
    assert_non_null(img);
    size_t n = fread(img, 1, OUT_MAX, f);
    fclose(f);
    /* the name PT_INTERP points at: the first "/ld-linux" string's start */
    char *at = memmem(img, n, "/ld-linux", 9);
    assert_non_null(at);
    while (at > img && at[-1])
        at--;
    size_t old = strlen(at);
    assert_true(strlen(interp) <= old);
    memset(at, 0, old);
    memcpy(at, interp, strlen(interp));
    const char *copy = test_temp_file(NULL);
    f = fopen(copy, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, n, f), n);
    fclose(f);
    assert_int_equal(chmod(copy, 0700), 0);
    free(img);
    free(guest);
    return copy;
}

/* What cannot be loaded is refused clearly, naming the file: not an ELF
 * executable, missing, an interpreter that is missing or no ELF file. */
static void test_refuses_non_programs(void **state)
{
    (void)state;
    char *tracegen = path_in("CGM_BIN", "%s", "tracegen");
    char *src = source_file();
    const char *no_interp = with_interpreter("/nonexistent/ld.so");
    const char *text = test_temp_file("not an ELF file\n");
    const char *text_interp = with_interpreter(text);
    struct { const char *prog, *named; } cases[] = {
        { src, src },
        { "/nonexistent/program", "/nonexistent/program" },
        { no_interp, "/nonexistent/ld.so" },
        { text_interp, text },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[] = { tracegen, "--no-trace", "--", (char *)cases[i].prog, NULL };
        struct run_result *r = run_program(argv, NULL);
        assert_int_equal(r->status, 2);
        if (!strstr(r->err, cases[i].named))
            fail_msg("case %zu: the message does not name %s: %s", i, cases[i].named, r->err);
        run_result_free(r);
    }
    free(src);
    free(tracegen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_musl),
        cmocka_unit_test(test_strings_musl),
        cmocka_unit_test(test_malloc_qsort_musl),
        cmocka_unit_test(test_printf_float_musl),
        cmocka_unit_test(test_file_read_musl),
        cmocka_unit_test(test_hello_glibc),
        cmocka_unit_test(test_strings_glibc),
        cmocka_unit_test(test_malloc_qsort_glibc),
        cmocka_unit_test(test_printf_float_glibc),
        cmocka_unit_test(test_file_read_glibc),
        cmocka_unit_test(test_matmul_mt_musl),
        cmocka_unit_test(test_sync_mt_musl),
        cmocka_unit_test(test_matmul_mt_glibc),
        cmocka_unit_test(test_sync_mt_glibc),
        cmocka_unit_test(test_sync_mt_any_quantum),
        cmocka_unit_test(test_backprop_musl),
        cmocka_unit_test(test_lud_musl),
        cmocka_unit_test(test_kmeans_musl),
        cmocka_unit_test(test_hotspot_musl),
        cmocka_unit_test(test_nw_musl),
        cmocka_unit_test(test_bfs_musl),
        cmocka_unit_test(test_backprop_glibc),
        cmocka_unit_test(test_lud_glibc),
        cmocka_unit_test(test_kmeans_glibc),
        cmocka_unit_test(test_hotspot_glibc),
        cmocka_unit_test(test_nw_glibc),
        cmocka_unit_test(test_bfs_glibc),
        cmocka_unit_test(test_fenv_musl),
        cmocka_unit_test(test_fenv_glibc),
        cmocka_unit_test(test_avx2_kernels_musl),
        cmocka_unit_test(test_avx2_kernels_glibc),
        cmocka_unit_test(test_waits_musl),
        cmocka_unit_test(test_waits_glibc),
        cmocka_unit_test(test_hello_musl_dyn),
        cmocka_unit_test(test_strings_musl_dyn),
        cmocka_unit_test(test_malloc_qsort_musl_dyn),
        cmocka_unit_test(test_printf_float_musl_dyn),
        cmocka_unit_test(test_matmul_mt_musl_dyn),
        cmocka_unit_test(test_sync_mt_musl_dyn),
        cmocka_unit_test(test_fenv_musl_dyn),
        cmocka_unit_test(test_hello_glibc_dyn),
        cmocka_unit_test(test_strings_glibc_dyn),
        cmocka_unit_test(test_malloc_qsort_glibc_dyn),
        cmocka_unit_test(test_printf_float_glibc_dyn),
        cmocka_unit_test(test_matmul_mt_glibc_dyn),
        cmocka_unit_test(test_sync_mt_glibc_dyn),
        cmocka_unit_test(test_fenv_glibc_dyn),
        cmocka_unit_test(test_file_read_glibc_dyn),
        cmocka_unit_test(test_startup_musl),
        cmocka_unit_test(test_startup_glibc),
        cmocka_unit_test(test_startup_musl_dyn),
        cmocka_unit_test(test_startup_glibc_dyn),
        cmocka_unit_test(test_timerfd_musl),
        cmocka_unit_test(test_timerfd_glibc),
        cmocka_unit_test(test_sigwait_musl),
        cmocka_unit_test(test_sigwait_glibc),
        cmocka_unit_test(test_sigqueue_musl),
        cmocka_unit_test(test_sigqueue_glibc),
        cmocka_unit_test(test_cxx_threads_glibc),
        cmocka_unit_test(test_refuses_non_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
