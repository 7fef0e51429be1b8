/* Dynamically linked programs under tracegen, beyond their output (which
 * test_x86_native compares with native runs): no vDSO is offered; the
 * trace's static table describes the code of the program, the interpreter
 * and the libraries at the addresses the interpreter mapped them (as the
 * guest reports them through dl_iterate_phdr), byte for byte as in the
 * host's files; the same program gives the same trace bytes twice; the
 * trace replays every instruction it holds. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "tests/unit/run_program.h"
#include "tests/unit/temp_file.h"

static char tracegen[4096], replay[4096], build[4096];

static int setup(void **state)
{
    (void)state;
    if (!getenv("CGM_BUILD") || !getenv("CGM_BIN"))
        return -1;
    snprintf(tracegen, sizeof tracegen, "%s/tracegen", getenv("CGM_BIN"));
    snprintf(replay, sizeof replay, "%s/replay", getenv("CGM_BIN"));
    snprintf(build, sizeof build, "%s", getenv("CGM_BUILD"));
    return 0;
}

/* The build of workload NAME linked as LIBC ("glibc-dyn", "musl-dyn"). */
static char *guest(const char *libc, const char *name)
{
    char *p = malloc(8192);
    assert_non_null(p);
    snprintf(p, 8192, "%s/traces/x86/%s/%s", build, libc, name);
    return p;
}

/* Records GUEST with ARG (may be NULL) into a new temporary trace; returns
 * the run, whose status must be 0. */
static struct run_result *record(const char *trace, const char *prog, const char *arg)
{
    char *argv[] = { tracegen, "--quiet", "-o", (char *)trace, "--", (char *)prog,
                     (char *)arg, NULL };
    struct run_result *r = run_program(argv, NULL);
    if (r->status != 0)
        print_error("tracegen %s: %s\n", prog, r->err);
    assert_int_equal(r->status, 0);
    return r;
}

static void no_vdso(const char *libc)
{
    char *prog = guest(libc, "startup");
    char *argv[] = { tracegen, "--no-trace", "--quiet", "--", prog, "vdso", NULL };
    struct run_result *r = run_program(argv, NULL);
    assert_int_equal(r->status, 0);
    assert_string_equal(r->out, "vdso: none\n");
    run_result_free(r);
    free(prog);
}

static void test_no_vdso_glibc(void **state) { (void)state; no_vdso("glibc-dyn"); }
static void test_no_vdso_musl(void **state) { (void)state; no_vdso("musl-dyn"); }

/* A loaded ELF file: its bytes, where it was loaded, and how many static
 * entries lie in its executable segments. */
struct object {
    char path[4096];
    uint64_t base;
    uint8_t *file;
    size_t size;
    size_t described;
};

static void object_read(struct object *o)
{
    FILE *f = fopen(o->path, "rb");
    if (!f)
        fail_msg("cannot open %s", o->path);
    fseek(f, 0, SEEK_END);
    o->size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    o->file = malloc(o->size);
    assert_non_null(o->file);
    assert_int_equal(fread(o->file, 1, o->size, f), o->size);
    fclose(f);
    assert_true(o->size >= sizeof(Elf64_Ehdr));
    assert_memory_equal(o->file, ELFMAG, SELFMAG);
}

/* The file bytes of O at guest address ADDR (LEN bytes) when they lie in an
 * executable loadable segment of O, else NULL. */
static const uint8_t *object_code(const struct object *o, uint64_t addr, size_t len)
{
    const Elf64_Ehdr *eh = (const void *)o->file;
    assert_true(eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= o->size);
    const Elf64_Phdr *ph = (const void *)(o->file + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
            continue;
        uint64_t start = o->base + ph[i].p_vaddr;
        if (addr >= start && addr + len <= start + ph[i].p_filesz) {
            assert_true(ph[i].p_offset + ph[i].p_filesz <= o->size);
            return o->file + ph[i].p_offset + (addr - start);
        }
    }
    return NULL;
}

/* The objects of the guest's "maps" output: "PATH 0xBASE" lines, the
 * program first as "(program)". */
static size_t parse_maps(const char *out, const char *prog, struct object *objs, size_t cap)
{
    size_t n = 0;
    for (const char *line = out; *line && n < cap; n++) {
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        const char *sp = memrchr(line, ' ', (size_t)(nl - line));
        assert_non_null(sp);
        memset(&objs[n], 0, sizeof objs[n]);
        if (strncmp(line, "(program) ", 10) == 0)
            snprintf(objs[n].path, sizeof objs[n].path, "%s", prog);
        else
            snprintf(objs[n].path, sizeof objs[n].path, "%.*s", (int)(sp - line), line);
        objs[n].base = strtoull(sp + 1, NULL, 16);
        object_read(&objs[n]);
        line = nl + 1;
    }
    return n;
}

static void static_table_is_the_files(const char *libc, size_t min_objects)
{
    char *prog = guest(libc, "startup");
    const char *trace = test_temp_file(NULL);
    struct run_result *r = record(trace, prog, "maps");
    struct object objs[16];
    size_t nobj = parse_maps(r->out, prog, objs, 16);
    run_result_free(r);
    assert_true(nobj >= min_objects);

    char err[512];
    struct cgm_reader *rd = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(rd);
    struct cgm_x86_static *es;
    size_t n;
    assert_int_equal(cgm_x86_static_read(rd, 1u << 30, &es, &n, err, sizeof err), 0);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        const uint8_t *code = NULL;
        for (; k < nobj && !code; k++)
            code = object_code(&objs[k], es[i].addr, es[i].len);
        if (!code)
            fail_msg("static entry at 0x%llx lies in no loaded file's code",
                     (unsigned long long)es[i].addr);
        if (memcmp(code, es[i].bytes, es[i].len) != 0)
            fail_msg("static entry at 0x%llx: not the bytes of %s",
                     (unsigned long long)es[i].addr, objs[k - 1].path);
        objs[k - 1].described++;
    }
    for (size_t k = 0; k < nobj; k++) {
        if (!objs[k].described)
            fail_msg("no code of %s (loaded at 0x%llx) in the static table", objs[k].path,
                     (unsigned long long)objs[k].base);
        free(objs[k].file);
    }
    free(es);
    cgm_reader_close(rd);
    unlink(trace);
    free(prog);
}

/* glibc: the program, libc.so.6 and ld-linux; musl: the program and its
 * loader, which is its C library too. */
static void test_static_table_glibc(void **state) { (void)state; static_table_is_the_files("glibc-dyn", 3); }
static void test_static_table_musl(void **state) { (void)state; static_table_is_the_files("musl-dyn", 2); }

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(*len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, *len, f), *len);
    fclose(f);
    buf[*len] = 0;
    return buf;
}

/* Instructions of the trace's x86 thread streams, as the reader counts them. */
static uint64_t trace_instructions(const char *trace)
{
    char err[512];
    struct cgm_reader *rd = cgm_reader_open(trace, err, sizeof err);
    assert_non_null(rd);
    uint64_t total = 0;
    for (size_t s = 0; s < cgm_reader_stream_count(rd); s++) {
        const struct cgm_reader_stream *st = cgm_reader_stream(rd, s);
        if (st->info.kind == CGM_STREAM_X86_THREAD)
            total += st->totals.instructions;
    }
    cgm_reader_close(rd);
    return total;
}

static void same_trace_twice_and_replays(const char *libc)
{
    char *prog = guest(libc, "matmul_mt");
    const char *a = test_temp_file(NULL), *b = test_temp_file(NULL);
    run_result_free(record(a, prog, NULL));
    run_result_free(record(b, prog, NULL));
    size_t na, nb;
    uint8_t *ta = slurp(a, &na), *tb = slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na);
    free(ta);
    free(tb);

    const char *json = test_temp_file(NULL);
    char *argv[] = { replay, "-q", "-o", (char *)json, (char *)a, NULL };
    struct run_options o = { .timeout = 300 };
    struct run_result *r = run_program(argv, &o);
    if (r->status != 0)
        print_error("replay %s: %s\n", a, r->err);
    assert_int_equal(r->status, 0);
    run_result_free(r);
    size_t len;
    char *text = (char *)slurp(json, &len);
    /* the top-level key (one tab in), not the per-core ones */
    const char *key = strstr(text, "\n\t\"instructions\":");
    assert_non_null(key);
    uint64_t replayed = strtoull(strchr(key, ':') + 1, NULL, 10);
    uint64_t recorded = trace_instructions(a);
    assert_true(recorded > 0);
    assert_int_equal(replayed, recorded);
    free(text);
    unlink(a);
    unlink(b);
    unlink(json);
    free(prog);
}

static void test_same_trace_glibc(void **state) { (void)state; same_trace_twice_and_replays("glibc-dyn"); }
static void test_same_trace_musl(void **state) { (void)state; same_trace_twice_and_replays("musl-dyn"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_vdso_glibc),
        cmocka_unit_test(test_no_vdso_musl),
        cmocka_unit_test(test_static_table_glibc),
        cmocka_unit_test(test_static_table_musl),
        cmocka_unit_test(test_same_trace_glibc),
        cmocka_unit_test(test_same_trace_musl),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
