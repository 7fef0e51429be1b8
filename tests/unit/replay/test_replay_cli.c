/* bin/replay's command line: --help documents every option the program
 * accepts; usage errors exit 2 and bad configurations 1 with file and line;
 * --print-config reads back; --dram-trace reaches the DRAM-only driver; a
 * trace cut short is refused, or with --partial replayed, in a message
 * that says "incomplete" once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/config.h"
#include "tests/unit/temp_file.h"

static char out[65536];

/* Runs bin/replay ARGS (stdout and stderr into out); returns the exit status. */
static int replay(const char *args)
{
    const char *bin = getenv("CGM_BIN");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/replay %s 2>&1", bin ? bin : "bin", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_help_and_usage(void **state)
{
    (void)state;
    assert_int_equal(replay("--help"), 0);
    static const char *const options[] = { "-c FILE", "--set", "-o FILE", "--roi", "-q", "--partial",
                                           "--print-config", "--dram-trace", "--help" };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        assert_non_null(strstr(out, options[i]));
    assert_int_equal(replay(""), 2);
    assert_int_equal(replay("--frobnicate x.cgt"), 2);
    assert_non_null(strstr(out, "--frobnicate"));
    assert_int_equal(replay("a.cgt b.cgt"), 2);
    assert_int_equal(replay("-c"), 2);
}

static void test_config_errors(void **state)
{
    (void)state;
    const char *path = test_temp_file("[cpu]\ncores = 2\n\n[cache.l1d]\nsize = 12 parsecs\n");
    char args[256], where[128];
    snprintf(args, sizeof args, "-c %s nothing.cgt", path);
    assert_int_equal(replay(args), 1);
    snprintf(where, sizeof where, "%s:5:", path);
    assert_non_null(strstr(out, where));
    assert_non_null(strstr(out, "size"));
    assert_int_equal(replay("--set cpu.cores=0 nothing.cgt"), 1);
    assert_non_null(strstr(out, "cpu.cores"));
    unlink(path);
}

static void test_print_config_reads_back(void **state)
{
    (void)state;
    assert_int_equal(replay("--set cache.l2.size=512KiB --set cpu.predictor=gselect --set cpu.history_bits=6 "
                            "--print-config"), 0);
    const char *path = test_temp_file(out);
    struct rp_config a, b;
    char err[512];
    rp_config_defaults(&a);
    assert_int_equal(rp_config_set(&a, "cache.l2.size=512KiB", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "cpu.predictor=gselect", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "cpu.history_bits=6", err, sizeof err), 0);
    rp_config_defaults(&b);
    assert_int_equal(rp_config_load(&b, path, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    unlink(path);
}

static void test_dram_trace(void **state)
{
    (void)state;
    const char *path = test_temp_file("0x1000 READ 0\n0x2000 WRITE 10\n0x1040 READ 20\n0x9000 READ 30\n");
    char args[256];
    snprintf(args, sizeof args, "--dram-trace %s", path);
    assert_int_equal(replay(args), 0);
    /* Three reads and one write, as the file says. */
    assert_non_null(strstr(out, "\"reads\":\t3"));
    assert_non_null(strstr(out, "\"writes\":\t1"));
    unlink(path);
}

static size_t count(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, word)); p += strlen(word))
        n++;
    return n;
}

/* A trace cut short (the golden trace's first 20000 bytes): replay refuses
 * it naming the file and --partial, with --partial warns and replays; each
 * message says "incomplete" once. */
static void test_cut_trace_messages(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT");
    char golden[1024], cut[] = "/tmp/cgm_cli_cut_XXXXXX", args[1200];
    snprintf(golden, sizeof golden, "%s/traces/golden/v2-x86-hello.cgt", root ? root : ".");
    FILE *in = fopen(golden, "rb");
    assert_non_null(in);
    static char buf[20000];
    assert_int_equal(fread(buf, 1, sizeof buf, in), sizeof buf);
    fclose(in);
    int fd = mkstemp(cut);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    close(fd);
    snprintf(args, sizeof args, "-q %s", cut);
    assert_int_equal(replay(args), 1);
    assert_non_null(strstr(out, cut));
    assert_non_null(strstr(out, "--partial"));
    assert_int_equal(count(out, "incomplete"), 1);
    snprintf(args, sizeof args, "-q --partial %s", cut);
    assert_int_equal(replay(args), 0);
    assert_int_equal(count(out, "incomplete"), 1);
    unlink(cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_print_config_reads_back),
        cmocka_unit_test(test_dram_trace),
        cmocka_unit_test(test_cut_trace_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
