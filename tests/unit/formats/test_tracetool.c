/* bin/tracetool end to end, on the golden trace whose content is known by
 * construction (see test_trace_golden.c) and on damaged copies of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>
#include <cmocka.h>

struct run {
    int status;
    char *out;  /* stdout and stderr together */
};

/* Runs tracetool with ARGS through the shell; captures output and status. */
static struct run tracetool(const char *args)
{
    const char *bin = getenv("CGM_BIN");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s/tracetool %s 2>&1", bin ? bin : "bin", args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    struct run r = { 0, NULL };
    size_t len = 0, cap = 0;
    int c;
    while ((c = fgetc(p)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? 2 * cap : 4096;
            r.out = realloc(r.out, cap);
        }
        r.out[len++] = (char)c;
    }
    if (!r.out)
        r.out = calloc(1, 1);
    r.out[len] = 0;
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return r;
}

static const char *golden(void)
{
    static char path[4096];
    const char *root = getenv("CGM_ROOT");
    snprintf(path, sizeof path, "%s/traces/golden/v1-small.cgt", root ? root : ".");
    return path;
}

static void info_json_describes_the_golden(void **state)
{
    (void)state;
    char args[4200];
    snprintf(args, sizeof args, "info --json %s", golden());
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "version")->valueint, 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "complete")));
    FILE *f = fopen(golden(), "rb");
    fseek(f, 0, SEEK_END);
    assert_int_equal((long)cJSON_GetObjectItem(j, "file_bytes")->valuedouble, ftell(f));
    fclose(f);
    cJSON *streams = cJSON_GetObjectItem(j, "streams");
    assert_int_equal(cJSON_GetArraySize(streams), 4);
    cJSON *s1 = cJSON_GetArrayItem(streams, 1);
    assert_string_equal(cJSON_GetObjectItem(s1, "kind")->valuestring, "x86_thread");
    assert_int_equal(cJSON_GetObjectItem(s1, "id")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(s1, "records")->valueint, 5000);
    assert_int_equal(cJSON_GetObjectItem(s1, "instructions")->valueint, 5000);
    /* 5000 records of 5 bytes, each framed by a one-byte length. */
    assert_int_equal(cJSON_GetObjectItem(s1, "raw_bytes")->valueint, 30000);
    assert_true(cJSON_GetObjectItem(s1, "compressed_bytes")->valueint > 0);
    cJSON *s2 = cJSON_GetArrayItem(streams, 2);
    assert_string_equal(cJSON_GetObjectItem(s2, "kind")->valuestring, "gpu_workgroup");
    cJSON *prog = cJSON_GetObjectItem(j, "program");
    assert_string_equal(cJSON_GetObjectItem(prog, "argv")->valuestring, "golden --small");
    cJSON_Delete(j);
    free(r.out);
}

static void dump_selects_stream_and_range(void **state)
{
    (void)state;
    char args[4200];
    snprintf(args, sizeof args, "dump --stream 2 --from 4999 --count 5 %s", golden());
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    /* Record 4999 = 0x1387, little-endian after the type byte 0x40. */
    assert_non_null(strstr(r.out, "2:4999 x86:0x40 len=5 bytes=4087130000\n"));
    assert_null(strstr(r.out, "2:4998"));
    assert_null(strstr(r.out, "1:"));
    free(r.out);
    snprintf(args, sizeof args, "dump -s 1 -n 2 %s", golden());
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "1:0 roi_begin seq=1\n"));
    assert_non_null(strstr(r.out, "1:1 thread_create seq=2 child_tid=1001 clone_flags=0x3d0f00\n"));
    assert_null(strstr(r.out, "1:2 "));
    free(r.out);
    snprintf(args, sizeof args, "dump --stream 99 %s", golden());
    r = tracetool(args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "no stream 99"));
    free(r.out);
}

static void stats_counts_by_type(void **state)
{
    (void)state;
    char args[4200];
    snprintf(args, sizeof args, "stats --json %s", golden());
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    cJSON *t = cJSON_GetObjectItem(j, "totals");
    assert_int_equal(cJSON_GetObjectItem(t, "futex_wait")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(t, "x86:0x40")->valueint, 5000);
    assert_int_equal(cJSON_GetObjectItem(t, "si:0x80")->valueint, 500);
    cJSON_Delete(j);
    free(r.out);
}

static void verify_accepts_intact_and_names_damage(void **state)
{
    (void)state;
    char args[4200], bad[64];
    snprintf(args, sizeof args, "verify %s", golden());
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    free(r.out);

    /* Flip one byte inside the first chunk payload of stream 2. */
    FILE *f = fopen(golden(), "rb");
    static uint8_t d[1 << 16];
    size_t n = fread(d, 1, sizeof d, f);
    fclose(f);
    snprintf(bad, sizeof bad, "/tmp/cgm_tt_%d.cgt", (int)getpid());
    d[1000] ^= 0x10;
    f = fopen(bad, "wb");
    fwrite(d, 1, n, f);
    fclose(f);
    snprintf(args, sizeof args, "verify %s", bad);
    r = tracetool(args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, bad));
    assert_non_null(strstr(r.out, "offset"));
    assert_non_null(strstr(r.out, "checksum"));
    free(r.out);

    /* Cut in half: info still reads it and says it is incomplete. */
    f = fopen(bad, "wb");
    d[1000] ^= 0x10;
    fwrite(d, 1, n / 2, f);
    fclose(f);
    snprintf(args, sizeof args, "info --json %s", bad);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"complete\":\tfalse"));
    assert_non_null(strstr(r.out, "warning"));
    /* "incomplete" once in the warning (the reader's reason says why) */
    const char *w = strstr(r.out, "warning");
    const char *first = strstr(w, "incomplete");
    assert_non_null(first);
    const char *eol = strchr(w, '\n');
    const char *second = strstr(first + 1, "incomplete");
    assert_true(!second || (eol && second > eol));
    free(r.out);
    unlink(bad);
}

/* Records a real guest and checks the x86 views against facts from
 * outside tracetool: the ELF header's entry point, and the instruction
 * count the writer kept while tracegen recorded. */
static void x86_dump_and_stats_of_a_recorded_guest(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT"), *build = getenv("CGM_BUILD"), *bin = getenv("CGM_BIN");
    char guest[4096], trace[64], cmd[8400], args[4200];
    snprintf(guest, sizeof guest, "%s/traces/x86/musl/hello", build ? build : "build");
    FILE *g = fopen(guest, "rb");
    if (!g)
        skip(); /* guests are built by make test */
    uint8_t ehdr[64];
    assert_int_equal(fread(ehdr, 1, sizeof ehdr, g), sizeof ehdr);
    fclose(g);
    uint64_t entry = 0;
    for (int i = 7; i >= 0; i--)
        entry = (entry << 8) | ehdr[24 + i]; /* e_entry */
    snprintf(trace, sizeof trace, "/tmp/cgm_tt_x86_%d.cgt", (int)getpid());
    snprintf(cmd, sizeof cmd, "cd %s && %s/tracegen --quiet -o %s -- %s >/dev/null 2>&1",
             root ? root : ".", bin ? bin : "bin", trace, guest);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3); /* hello's own exit status, as natively */

    snprintf(args, sizeof args, "dump -n 1 %s", trace);
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    char want[64];
    snprintf(want, sizeof want, ":0 block 0x%llx ", (unsigned long long)entry);
    assert_non_null(strstr(r.out, want));
    free(r.out);

    snprintf(args, sizeof args, "info --json %s", trace);
    r = tracetool(args);
    cJSON *info = cJSON_Parse(r.out);
    free(r.out);
    assert_non_null(info);
    double recorded = 0;
    cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItem(info, "streams"))
        if (!strcmp(cJSON_GetObjectItem(st, "kind")->valuestring, "x86_thread"))
            recorded += cJSON_GetObjectItem(st, "instructions")->valuedouble;
    cJSON_Delete(info);
    assert_true(recorded > 1000);

    snprintf(args, sizeof args, "stats --json %s", trace);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    free(r.out);
    assert_non_null(j);
    cJSON *x86 = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"), "x86");
    assert_non_null(x86);
    assert_true(cJSON_GetObjectItem(x86, "instructions")->valuedouble == recorded);
    /* The mix adds up to the instructions. */
    double sum = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(x86, "mix"))
        sum += c->valuedouble;
    assert_true(sum == recorded);
    assert_true(cJSON_GetObjectItem(x86, "footprint_pages")->valuedouble >= 1);
    assert_true(cJSON_GetObjectItem(x86, "footprint_lines")->valuedouble >=
                cJSON_GetObjectItem(x86, "footprint_pages")->valuedouble);
    cJSON_Delete(j);
    unlink(trace);
}

/* A recorded GPU workload: the SI dump's disassembly must be text LLVM's own
 * listing of the kernel contains, and the statistics must account for the
 * wavefront instructions the writer counted per work-group stream. */
static void si_dump_and_stats_of_a_recorded_workload(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT"), *build = getenv("CGM_BUILD"), *bin = getenv("CGM_BIN");
    char guest[4096], listing[4096], trace[64], cmd[8400], args[4200];
    snprintf(guest, sizeof guest, "%s/traces/gpu/backprop", build ? build : "build");
    snprintf(listing, sizeof listing, "%s/kernels/backprop.s", build ? build : "build");
    FILE *lf = fopen(listing, "r");
    if (access(guest, X_OK) || !lf)
        skip(); /* built by make test */
    static char lst[1 << 20];
    size_t ln = fread(lst, 1, sizeof lst - 1, lf);
    lst[ln] = 0;
    fclose(lf);
    snprintf(trace, sizeof trace, "/tmp/cgm_tt_si_%d.cgt", (int)getpid());
    snprintf(cmd, sizeof cmd, "cd %s && %s/tracegen --env CGM_BUILD=%s --quiet -o %s -- %s >/dev/null 2>&1",
             root ? root : ".", bin ? bin : "bin", build ? build : "build", trace, guest);
    assert_int_equal(system(cmd), 0);

    snprintf(args, sizeof args, "info --json %s", trace);
    struct run r = tracetool(args);
    cJSON *info = cJSON_Parse(r.out);
    free(r.out);
    assert_non_null(info);
    double counted = 0, first_group = -1;
    cJSON *st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItem(info, "streams"))
        if (!strcmp(cJSON_GetObjectItem(st, "kind")->valuestring, "gpu_workgroup")) {
            counted += cJSON_GetObjectItem(st, "instructions")->valuedouble;
            if (first_group < 0)
                first_group = cJSON_GetObjectItem(st, "id")->valuedouble;
        }
    cJSON_Delete(info);
    assert_true(counted > 0);

    snprintf(args, sizeof args, "stats --json %s", trace);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    free(r.out);
    cJSON *si = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"), "si");
    assert_non_null(si);
    assert_true(cJSON_GetObjectItem(si, "wavefront_instructions")->valuedouble == counted);
    double sum = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(si, "mix"))
        sum += c->valuedouble;
    assert_true(sum == counted);
    cJSON_Delete(j);

    snprintf(args, sizeof args, "dump --stream %.0f --count 1 %s", first_group, trace);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    /* Every instruction line: "    0xOFFSET  TEXT   exec=..."; TEXT must be
     * in LLVM's listing (branch targets aside, which it writes as labels). */
    int lines = 0;
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "    0x", 6))
            continue;
        char *text = strchr(l + 4, ' ');
        while (text && *text == ' ')
            text++;
        char *end = strstr(text, "  ");
        assert_non_null(end);
        *end = 0;
        if (!strncmp(text, "s_branch", 8) || !strncmp(text, "s_cbranch", 9))
            continue;
        if (!strstr(lst, text))
            fail_msg("'%s' is not in LLVM's listing", text);
        lines++;
    }
    assert_true(lines > 10);
    free(r.out);

    /* Branch targets are addresses: after a branch the stream's next
     * instruction is at the target (taken) or right after the branch (not),
     * as the emulator ran it; backprop's s_cbranch_execz go both ways. */
    snprintf(args, sizeof args, "dump --stream %.0f %s", first_group, trace);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    unsigned long prev = 0, target = 0;
    int after_branch = 0, taken = 0, not_taken = 0;
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "    0x", 6)) {
            after_branch = 0; /* a new record: its first instruction follows no branch of this one */
            continue;
        }
        char *end;
        unsigned long off = strtoul(l + 4, &end, 16);
        if (after_branch) {
            if (off == target && off != prev + 4)
                taken++;
            else if (off == prev + 4)
                not_taken++;
            else
                fail_msg("after the branch at 0x%lx to 0x%lx comes 0x%lx", prev, target, off);
        }
        while (*end == ' ')
            end++;
        after_branch = !strncmp(end, "s_branch ", 9) || !strncmp(end, "s_cbranch_", 10);
        if (after_branch) {
            const char *t = strstr(end, " 0x");
            assert_non_null(t);
            target = strtoul(t + 1, NULL, 16);
            prev = off;
        }
    }
    assert_true(taken > 0);
    assert_true(not_taken > 0);
    free(r.out);
    unlink(trace);
}

/* -s launch=N[,group=X,Y,Z] picks work-group streams by launch and group:
 * the golden GPU trace's launch 1 has four work-groups (0..3,0,0), stream
 * ids 0x40000000 upwards (traces/golden/README.md). */
static void dump_selects_work_groups(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT");
    char golden[4096], args[4200];
    snprintf(golden, sizeof golden, "%s/traces/golden/v2-gpu-stream-copy.cgt", root ? root : ".");
    snprintf(args, sizeof args, "dump -s launch=1,group=2,0,0 -n 1 %s", golden);
    struct run r = tracetool(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "# stream 1073741826 (gpu_workgroup"));
    assert_null(strstr(r.out, "# stream 1073741825"));
    assert_non_null(strstr(r.out, "1073741826:0 wave 0"));
    free(r.out);
    snprintf(args, sizeof args, "dump -s launch=1,group=3 -n 0 %s", golden);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "# stream 1073741827 "));
    free(r.out);
    snprintf(args, sizeof args, "dump -s launch=1 -n 0 %s", golden);
    r = tracetool(args);
    assert_int_equal(r.status, 0);
    int streams = 0;
    for (const char *p = r.out; (p = strstr(p, "# stream ")); p++)
        streams++;
    assert_int_equal(streams, 4);
    free(r.out);
    snprintf(args, sizeof args, "dump -s launch=1,group=9,0,0 %s", golden);
    r = tracetool(args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "launch 1 has 4 work-groups, none (9,0,0)"));
    free(r.out);
    snprintf(args, sizeof args, "dump -s launch=2 %s", golden);
    r = tracetool(args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "no launch 2 (launches: 1)"));
    free(r.out);
    static const char *const bad[] = { "launch=", "launch=x", "launch=1,group=", "launch=1,group=1,2,3,4",
                                       "launch=1,grp=0", "launch=1,group=1,,2", "lunch=1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(args, sizeof args, "dump -s %s %s", bad[i], golden);
        r = tracetool(args);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.out, "bad stream"));
        free(r.out);
    }
}

static void usage_errors_and_help(void **state)
{
    (void)state;
    static const char *cmds[] = { "info", "verify", "dump", "stats" };
    for (size_t i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        struct run r = tracetool(args);
        assert_int_equal(r.status, 0);
        char want[64];
        snprintf(want, sizeof want, "usage: tracetool %s", cmds[i]);
        assert_non_null(strstr(r.out, want));
        free(r.out);
        r = tracetool(cmds[i]); /* no FILE */
        assert_int_equal(r.status, 2);
        free(r.out);
    }
    struct run r = tracetool("frobnicate x");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "unknown command 'frobnicate'"));
    free(r.out);
    r = tracetool("info /nonexistent.cgt");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "/nonexistent.cgt: cannot open"));
    free(r.out);
    r = tracetool("dump --from -3 x.cgt");
    assert_int_equal(r.status, 2);
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_json_describes_the_golden),
        cmocka_unit_test(dump_selects_stream_and_range),
        cmocka_unit_test(stats_counts_by_type),
        cmocka_unit_test(verify_accepts_intact_and_names_damage),
        cmocka_unit_test(x86_dump_and_stats_of_a_recorded_guest),
        cmocka_unit_test(si_dump_and_stats_of_a_recorded_workload),
        cmocka_unit_test(dump_selects_work_groups),
        cmocka_unit_test(usage_errors_and_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
