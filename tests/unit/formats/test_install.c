/* `make install` into a temporary DESTDIR, then a small reader built
 * against the installed tree only (its headers, libcgmtrace.so and
 * cgmtrace.pc through pkg-config, nothing of the source tree) reads the
 * golden traces; and the installed Python package loads the installed
 * library. Expected counts are those the golden traces' writers wrote
 * (traces/golden/README.md): v1-small's streams, hello's 5462
 * instructions as tracegen counted them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/run_program.h"

#define PREFIX "/opt/cgmtrace-install-test"

static char dest[256];

static const char reader_c[] =
    "#include <stdio.h>\n"
    "#include <cgm/trace.h>\n"
    "#include <cgm/x86cursor.h>\n"
    "int main(int argc, char **argv) {\n"
    "    char err[512];\n"
    "    struct cgm_reader *r = cgm_reader_open(argv[1], err, sizeof err);\n"
    "    if (!r) { fprintf(stderr, \"%s\\n\", err); return 1; }\n"
    "    struct cgm_x86_view *v = argc > 2 ? cgm_x86_view_open(r, err, sizeof err) : NULL;\n"
    "    printf(\"%zu streams\", cgm_reader_stream_count(r));\n"
    "    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {\n"
    "        const struct cgm_reader_stream *s = cgm_reader_stream(r, i);\n"
    "        struct cgm_riter *it = cgm_riter_open(r, i);\n"
    "        const uint8_t *rec; size_t len; unsigned long n = 0;\n"
    "        while (cgm_riter_next(it, &rec, &len) == 1) n++;\n"
    "        cgm_riter_close(it);\n"
    "        printf(\" %u:%lu\", s->info.id, n);\n"
    "        if (!v || s->info.kind != CGM_STREAM_X86_THREAD) continue;\n"
    "        struct cgm_x86_cursor *c = cgm_x86_cursor_open(r, v, i, err, sizeof err);\n"
    "        struct cgm_x86_insn x; unsigned long insns = 0;\n"
    "        while (cgm_x86_cursor_next(c, &x) == 1) insns += x.st != NULL;\n"
    "        cgm_x86_cursor_close(c);\n"
    "        printf(\" insns=%lu\", insns);\n"
    "    }\n"
    "    putchar('\\n');\n"
    "    cgm_x86_view_close(v);\n"
    "    cgm_reader_close(r);\n"
    "    return 0;\n"
    "}\n";

/* Runs the shell command FMT in DEST; returns its result (free it). */
static struct run_result *sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char script[4096 + sizeof dest + 16];
    snprintf(script, sizeof script, "cd '%s' && %s", dest, cmd);
    char *argv[] = { "/bin/sh", "-c", script, NULL };
    struct run_options opt = { .timeout = 300 };
    struct run_result *r = run_program(argv, &opt);
    assert_non_null(r);
    if (r->status)
        fprintf(stderr, "command failed (%d): %s\n%s%s", r->status, cmd, r->out, r->err);
    return r;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dest, sizeof dest, "/tmp/cgm_install_%d", (int)getpid());
    char *argv[] = { "/bin/mkdir", "-p", dest, NULL };
    struct run_result *r = run_program(argv, NULL);
    int rc = r && r->status == 0 ? 0 : -1;
    run_result_free(r);
    if (rc)
        return rc;
    /* make install as the tree was built (install-built builds nothing);
     * the make running the tests must not lend its flags to this one */
    r = sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' install-built "
           "BUILD='%s' BIN='%s' DESTDIR='%s' PREFIX=" PREFIX " >/dev/null",
           getenv("CGM_ROOT"), getenv("CGM_BUILD"), getenv("CGM_BIN"), dest);
    rc = r->status ? -1 : 0;
    run_result_free(r);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    char *argv[] = { "/bin/rm", "-rf", dest, NULL };
    run_result_free(run_program(argv, NULL));
    return 0;
}

static void test_shared_library_has_its_soname(void **state)
{
    (void)state;
    struct run_result *r = sh("readelf -d ." PREFIX "/lib/libcgmtrace.so");
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "Library soname: [libcgmtrace.so.1]"));
    run_result_free(r);
    r = sh("readlink ." PREFIX "/lib/libcgmtrace.so.1");
    assert_int_equal(r->status, 0);
    assert_string_equal(r->out, "libcgmtrace.so.1.0.0\n");
    run_result_free(r);
}

static void test_reader_built_from_the_installed_tree(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/reader.c", dest);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(reader_c, f);
    fclose(f);
    /* PKG_CONFIG_SYSROOT_DIR puts DESTDIR before the .pc file's paths */
    struct run_result *r = sh("export PKG_CONFIG_PATH=$PWD" PREFIX "/lib/pkgconfig "
                              "PKG_CONFIG_SYSROOT_DIR=$PWD; "
                              "cc -std=c11 -Wall -Wextra -Werror -o reader reader.c "
                              "$(pkg-config --cflags --libs cgmtrace)");
    assert_int_equal(r->status, 0);
    run_result_free(r);
    r = sh("readelf -d reader");
    assert_non_null(strstr(r->out, "Shared library: [libcgmtrace.so.1]"));
    run_result_free(r);

    const char *root = getenv("CGM_ROOT");
    r = sh("LD_LIBRARY_PATH=$PWD" PREFIX "/lib ./reader '%s/traces/golden/v1-small.cgt'", root);
    assert_int_equal(r->status, 0);
    assert_string_equal(r->out, "4 streams 1:20 2:5000 3:500 4:1\n");
    run_result_free(r);
    r = sh("LD_LIBRARY_PATH=$PWD" PREFIX "/lib ./reader '%s/traces/golden/v2-x86-hello.cgt' x86",
           root);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, " 1000:1372 insns=5462 "));
    run_result_free(r);
    /* and the library it ran is the installed one */
    r = sh("LD_LIBRARY_PATH=$PWD" PREFIX "/lib ldd reader | grep libcgmtrace");
    assert_non_null(strstr(r->out, dest));
    run_result_free(r);
}

static void test_installed_python_package_loads_the_installed_library(void **state)
{
    (void)state;
    const char *py = getenv("CGM_PYTHON") ? getenv("CGM_PYTHON") : "python3";
    struct run_result *r = sh(
        "env -u CGMTRACE_LIB PYTHONPATH=$PWD" PREFIX "/lib/python3/dist-packages %s -c '"
        "import cgmtrace, cgmtrace._lib as L\n"
        "t = cgmtrace.open(\"%s/traces/golden/v1-small.cgt\")\n"
        "print(L.lib._name, cgmtrace.__file__)\n"
        "print([(s.id, s.records) for s in t.streams])'",
        py, getenv("CGM_ROOT"));
    assert_int_equal(r->status, 0);
    char want_lib[400], want_py[400];
    snprintf(want_lib, sizeof want_lib, "%s" PREFIX "/lib/libcgmtrace.so.1 ", dest);
    snprintf(want_py, sizeof want_py, "%s" PREFIX "/lib/python3/dist-packages/cgmtrace/", dest);
    assert_non_null(strstr(r->out, want_lib));
    assert_non_null(strstr(r->out, want_py));
    assert_non_null(strstr(r->out, "[(1, 20), (2, 5000), (3, 500), (4, 1)]"));
    run_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_library_has_its_soname),
        cmocka_unit_test(test_reader_built_from_the_installed_tree),
        cmocka_unit_test(test_installed_python_package_loads_the_installed_library),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
