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

#include <cJSON.h>

#include "replay/config.h"
#include "tests/unit/temp_file.h"

static char out[1 << 20]; /* --list-stats prints about 70 KB */

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
                                           "--print-config", "--list-stats", "--dram-trace", "--help" };
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

/* Every number's path under NODE into PATHS (newline-separated), array
 * elements by their "name" when they have one, else by index; the
 * buckets of histograms (lists of {from, below, count}, filled by the run)
 * left out. */
static void collect_paths(const cJSON *node, const char *prefix, char **paths, size_t *len)
{
    if (cJSON_IsNumber(node)) {
        size_t n = strlen(prefix);
        *paths = realloc(*paths, *len + n + 2);
        memcpy(*paths + *len, prefix, n);
        (*paths)[*len + n] = '\n';
        *len += n + 1;
        (*paths)[*len] = 0;
        return;
    }
    if (cJSON_IsArray(node) && node->child && cJSON_GetObjectItemCaseSensitive(node->child, "below"))
        return;
    size_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, node) {
        char p[1024];
        const cJSON *name = cJSON_IsArray(node) ? cJSON_GetObjectItemCaseSensitive(c, "name") : NULL;
        if (cJSON_IsArray(node) && cJSON_IsString(name) && name->valuestring[0])
            snprintf(p, sizeof p, "%s[%s]", prefix, name->valuestring);
        else if (cJSON_IsArray(node))
            snprintf(p, sizeof p, "%s[%zu]", prefix, i);
        else
            snprintf(p, sizeof p, "%s%s%s", prefix, *prefix ? "." : "", c->string);
        i++;
        collect_paths(c, p, paths, len);
    }
}

static char *paths_of(const char *json_path)
{
    FILE *f = fopen(json_path, "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    char *paths = calloc(1, 1);
    size_t len = 0;
    collect_paths(j, "", &paths, &len);
    cJSON_Delete(j);
    return paths;
}

/* --list-stats builds the system and runs nothing: its list is the paths
 * of the statistics a run reports (the run's JSON, read here with cJSON,
 * histogram buckets aside), and "roi" holds the same tree as a run with
 * markers reports; the kernels have their names before the run
 * (stream_copy, tests/data/si/kernels/micro.cl). */
static void test_list_stats(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT");
    char hello[1024], gpu[1024], args[3000];
    char run[] = "/tmp/cgm_cli_run_XXXXXX", shape[] = "/tmp/cgm_cli_shape_XXXXXX";
    close(mkstemp(run));
    close(mkstemp(shape));
    snprintf(hello, sizeof hello, "%s/traces/golden/v2-x86-hello.cgt", root ? root : ".");
    snprintf(gpu, sizeof gpu, "%s/traces/golden/v2-gpu-stream-copy.cgt", root ? root : ".");
    snprintf(args, sizeof args, "--list-stats %s", hello);
    assert_int_equal(replay(args), 0);
    static const char *const listed[] = { "\ncores[3].ipc\n", "\ncaches[core0.l1d].misses\n", "\nroi.cycles\n",
                                          "\ndram.reads\n", "\nroi.caches[l3.3].miss_rate\n" };
    assert_int_equal(strncmp(out, "cycles\n", 7), 0);
    for (size_t i = 0; i < sizeof listed / sizeof *listed; i++)
        assert_non_null(strstr(out, listed[i]));
    char *list = strdup(out);
    for (int g = 0; g < 2; g++) {
        const char *t = g ? gpu : hello;
        snprintf(args, sizeof args, "-q -o %s %s", run, t);
        assert_int_equal(replay(args), 0);
        snprintf(args, sizeof args, "--list-stats -q -o %s %s", shape, t);
        assert_int_equal(replay(args), 0);
        assert_int_equal(out[0], 0); /* -q: no list */
        char *a = paths_of(run), *b = paths_of(shape);
        /* the list's paths: the run's, then the region's ("roi." + the run's) */
        char *want = NULL;
        size_t wl = 0;
        want = calloc(1, 1);
        for (int pass = 0; pass < 2; pass++)
            for (char *line = a; *line;) {
                char *eol = strchr(line, '\n');
                size_t n = (size_t)(eol - line);
                want = realloc(want, wl + n + 6);
                wl += (size_t)sprintf(want + wl, "%s%.*s\n", pass ? "roi." : "", (int)n, line);
                line = eol + 1;
            }
        /* both in the JSON's order: the run's members, then "roi" (before
         * "trace", a string) */
        char *roi = strstr(b, "\nroi.");
        assert_non_null(roi);
        assert_int_equal(strncmp(b, want, (size_t)(roi + 1 - b)), 0);
        assert_string_equal(roi + 1, strstr(want, "\nroi.") + 1);
        if (g)
            assert_non_null(strstr(b, "\ngpu.kernels[stream_copy].cycles\n"));
        if (!g)
            assert_non_null(strstr(list, "\ncores[3].ipc\n"));
        free(a);
        free(b);
        free(want);
    }
    free(list);
    snprintf(args, sizeof args, "--list-stats --windows 10 --windows-out %s %s", run, hello);
    assert_int_equal(replay(args), 2);
    assert_non_null(strstr(out, "--list-stats"));
    assert_int_equal(replay("--list-stats"), 2);
    unlink(run);
    unlink(shape);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_usage),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_print_config_reads_back),
        cmocka_unit_test(test_dram_trace),
        cmocka_unit_test(test_cut_trace_messages),
        cmocka_unit_test(test_list_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
