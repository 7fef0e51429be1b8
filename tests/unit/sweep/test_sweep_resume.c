/* bin/sweep's bookkeeping, with a stand-in for replay (a shell script whose
 * cycles are 1000 x cpu.cores, that fails for 3 cores and hangs for 7) so
 * every run is counted:
 * - a failed point is reported with its configuration and replay's message
 *   and the others still run; a rerun runs only what has no result;
 * - an interrupted sweep (a result missing, a partial file left) resumes;
 *   a signal stops the running points and leaves no partial file; a point
 *   running past --timeout is killed and reported, the others go on;
 * - keys: a hash of the trace's bytes (XXH3-128, checked here) and the
 *   effective configuration, whatever the spelling, path or spec;
 * - the Slurm backend, through a stand-in sbatch that runs the array's
 *   tasks here: `sweep collect` gives the local run's table byte for byte;
 * - windows (the spec's windows = N): a point is done only with its windows
 *   file, N is in the key, and `sweep windows SPEC` tabulates them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "tests/unit/sweep_harness.h"

static const char FAKE_REPLAY[] =
    "#!/bin/sh\n"
    "# replay -q -c INI -o OUT [--windows N --windows-out FILE] TRACE\n"
    "# replay --list-stats -q -c INI -o OUT TRACE: the statistics' shape, every value 0\n"
    "here=$(dirname \"$0\")\n"
    "window=\n"
    "list=\n"
    "while [ $# -gt 1 ]; do\n"
    "  case $1 in\n"
    "  --list-stats) list=1 ;;\n"
    "  -c) ini=$2; shift ;;\n"
    "  -o) out=$2; shift ;;\n"
    "  --windows) window=$2; shift ;;\n"
    "  --windows-out) wout=$2; shift ;;\n"
    "  esac\n"
    "  shift\n"
    "done\n"
    "trace=$1\n"
    "if [ -n \"$list\" ]; then\n"
    "  # listed_only: a statistic the list promises and no run reports\n"
    "  printf '{ \"cycles\": 0, \"instructions\": 0, \"ipc\": 0, \"load\": 0, \"listed_only\": 0, \"trace\": \"%s\" }\\n' \\\n"
    "    \"$trace\" > \"$out\"\n"
    "  exit 0\n"
    "fi\n"
    "echo \"$ini\" >> \"$here/calls\"\n"
    "cores=$(awk '/^\\[/ { s = $0 } s == \"[cpu]\" && $1 == \"cores\" { print $3 }' \"$ini\")\n"
    "case $cores in\n"
    "3) echo 'replay: stand-in failure for three cores' >&2; exit 3 ;;\n"
    "7) echo $$ > \"$here/sleeper\"; exec sleep 30 ;;\n"
    "esac\n"
    "# windows: CORES of them, the K-th with load 10 x CORES + K; none for 5 cores\n"
    "if [ -n \"$window\" ] && [ \"$cores\" != 5 ]; then\n"
    "  k=0; : > \"$wout\"\n"
    "  while [ $k -lt \"$cores\" ]; do\n"
    "    printf '{\"window\":%d,\"begin_cycle\":%d,\"cycles\":%d,\"load\":%d}\\n' $k $((k * window)) \"$window\" \\\n"
    "      $((cores * 10 + k)) >> \"$wout\"\n"
    "    k=$((k + 1))\n"
    "  done\n"
    "fi\n"
    "printf '{ \"cycles\": %d, \"instructions\": %d, \"ipc\": 1, \"load\": 0, \"trace\": \"%s\" }\\n' \\\n"
    "  $((cores * 1000)) $((cores * 1000)) \"$trace\" > \"$out\"\n";

static const char FAKE_SBATCH[] =
    "#!/bin/sh\n"
    "# sbatch --parsable --array=0-N [--wait] ... SCRIPT: runs each task here in turn\n"
    "here=$(dirname \"$0\")\n"
    "echo \"$@\" > \"$here/sbatch_args\"\n"
    "for a in \"$@\"; do case $a in --array=*) last=${a#--array=0-}; last=${last%[%]*} ;; esac; script=$a; done\n"
    "echo 4242\n"
    "i=0\n"
    "while [ $i -le $last ]; do\n"
    "  SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=$((5000 + i)) sh \"$script\" > /dev/null 2>&1\n"
    "  i=$((i + 1))\n"
    "done\n";

static char *dir, *sweep, *replay;
static char out[65536];

static int setup(void **state)
{
    (void)state;
    dir = harness_tmpdir();
    sweep = harness_bin("sweep");
    replay = harness_write(dir, "replay", FAKE_REPLAY, 1);
    free(harness_write(dir, "sbatch", FAKE_SBATCH, 1));
    free(harness_write(dir, "t.cgt", "the bytes of a trace\n", 0));
    free(harness_write(dir, "copy.cgt", "the bytes of a trace\n", 0));
    free(harness_write(dir, "other.cgt", "the bytes of another trace\n", 0));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_rmdir(dir);
    free(dir);
    free(sweep);
    free(replay);
    return 0;
}

static int calls(void)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/calls", dir) > 0);
    char *text = harness_read(path);
    free(path);
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static char *spec(const char *name, const char *text)
{
    return harness_write(dir, name, text, 0);
}

/* The table's rows (after the header) as one string. */
static char *table(const char *outdir)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/table.csv", dir, outdir) > 0);
    char *t = harness_read(path);
    free(path);
    assert_non_null(t);
    return t;
}

/* The key of the point whose cpu.cores is CORES, from --dry-run with the
 * replay program PROGRAM (NULL: the default one). */
static void key_with(const char *specpath, const char *program, int cores, char key[33])
{
    if (program)
        assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/x --replay %s", sweep, specpath, dir,
                                    program), 0);
    else
        assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/x", sweep, specpath, dir), 0);
    char row[64];
    snprintf(row, sizeof row, "  %d  ", cores);
    const char *line = strstr(out, row);
    assert_non_null(line);
    const char *eol = strchr(line, '\n');
    assert_non_null(eol);
    assert_true(eol - line > 32);
    memcpy(key, eol - 32, 32);
    key[32] = 0;
}

static void key_of(const char *specpath, int cores, char key[33])
{
    key_with(specpath, NULL, cores, key);
}

static void test_failure_isolated_and_rerun_skips(void **state)
{
    (void)state;
    char *s = spec("a.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\n[axes]\ncpu.cores = 1..4\n");
    int before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/out -j 2 --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls() - before, 4);
    /* The failure names the point, its configuration and replay's message. */
    assert_non_null(strstr(out, "point 2 failed (cpu.cores=3)"));
    assert_non_null(strstr(out, "stand-in failure for three cores"));
    assert_non_null(strstr(out, "exited with status 3"));
    assert_non_null(strstr(out, "4 points: 3 done, 1 failed"));
    char *t = table("out");
    /* cycles = 1000 x cores (the stand-in's rule); the failed point has none. */
    assert_non_null(strstr(t, "cpu.cores,cycles,status,result\n1,1000,done,points/"));
    assert_non_null(strstr(t, "\n2,2000,done,points/"));
    assert_non_null(strstr(t, "\n3,,failed,\n"));
    assert_non_null(strstr(t, "\n4,4000,done,points/"));
    /* A rerun runs only the failed point. */
    before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/out --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls() - before, 1);
    char *t2 = table("out");
    assert_string_equal(t, t2);
    free(t);
    free(t2);

    /* Interrupted: one result missing, a partial file left behind. */
    char key[33];
    key_with(s, replay, 2, key);
    assert_int_equal(harness_sh(out, sizeof out, "rm %s/out/points/%s.json && echo '{\"cyc' > %s/out/points/%s.json.tmp.999999999",
                                dir, key, dir, key),
                     0);
    before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/out --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls() - before, 2); /* cores=2 again, and the failed cores=3 */
    t = table("out");
    assert_non_null(strstr(t, "\n2,2000,done,points/"));
    free(t);
    /* The partial file of the dead run is gone. */
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/out/points | grep -c tmp", dir), 1);
    assert_string_equal(out, "0\n");

    /* Another spec sharing points with this one runs only the new ones. */
    char *s2 = spec("b.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\n[axes]\ncpu.cores = 2, 4, 5\n");
    before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/out --replay %s", sweep, s2, dir, replay), 0);
    assert_int_equal(calls() - before, 1);
    free(s);
    free(s2);
}

static void test_keys(void **state)
{
    (void)state;
    char k_a[33], k_a1[33], k_c[33], k_d[33], k_e[33];
    char *a = spec("ka.ini", "[sweep]\ntrace = t.cgt\n[axes]\ncpu.cores = 1, 2\n");
    /* The same effective configuration written differently: frequency's
     * default spelled another way, the key set in [base] not in an axis. */
    char *b = spec("kb.ini", "[sweep]\ntrace = t.cgt\n[base]\ncpu.frequency = 4000MHz\ncpu.cores = 2\n");
    char *c = spec("kc.ini", "[sweep]\ntrace = copy.cgt\n[axes]\ncpu.cores = 2, 3\n");   /* same bytes */
    char *d = spec("kd.ini", "[sweep]\ntrace = other.cgt\n[axes]\ncpu.cores = 2\n");     /* other bytes */
    char *e = spec("ke.ini", "[sweep]\ntrace = t.cgt\n[axes]\ncpu.cores = 2\ncache.l2.size = 512KiB\n");
    key_of(a, 2, k_a);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/x", sweep, b, dir), 0);
    assert_non_null(strstr(out, k_a));
    key_of(c, 2, k_c);
    key_of(d, 2, k_d);
    key_of(e, 2, k_e);
    key_of(a, 1, k_a1);
    assert_string_equal(k_a, k_c);
    assert_string_not_equal(k_a, k_d);
    assert_string_not_equal(k_a, k_e);
    assert_string_not_equal(k_a, k_a1);
    /* Results belong to the replay program that made them: another
     * program's bytes give another key, the same bytes elsewhere the same. */
    char k_r[33], k_same[33], k_other[33];
    char *same = harness_write(dir, "replay-copy", FAKE_REPLAY, 1);
    char *other = harness_write(dir, "replay-rebuilt", "#!/bin/sh\n# another build\nexit 0\n", 1);
    key_with(a, replay, 2, k_r);
    key_with(a, same, 2, k_same);
    key_with(a, other, 2, k_other);
    assert_string_equal(k_r, k_same);
    assert_string_not_equal(k_r, k_other);
    assert_string_not_equal(k_r, k_a); /* the default program, bin/replay */
    free(same);
    free(other);
    /* The trace's hash is XXH3-128 of its bytes. */
    static const char bytes[] = "the bytes of a trace\n";
    XXH128_hash_t h = XXH3_128bits(bytes, sizeof bytes - 1);
    char hex[40];
    snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s --dry-run -o %s/x", sweep, a, dir), 0);
    assert_non_null(strstr(out, hex));
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

static void test_signal_stops_cleanly(void **state)
{
    (void)state;
    char *s = spec("sig.ini", "[sweep]\ntrace = t.cgt\n[axes]\ncpu.cores = 6, 7\n");
    char *sleeper = NULL, *outdir = NULL;
    assert_true(asprintf(&sleeper, "%s/sleeper", dir) > 0);
    assert_true(asprintf(&outdir, "%s/sig", dir) > 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = freopen("/dev/null", "w", stderr);
        (void)f;
        execl(sweep, sweep, s, "-o", outdir, "-j", "2", "--replay", replay, (char *)NULL);
        _exit(127);
    }
    /* Wait (at most 20 s) until the hanging point has started. */
    char *text = NULL;
    for (int i = 0; i < 400 && !(text = harness_read(sleeper)); i++)
        nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
    assert_non_null(text);
    pid_t hung = (pid_t)atol(text);
    free(text);
    /* ... and the other point has its result (at most 20 s more: under
     * load the stand-in takes its time), so the signal meets exactly one
     * running point. */
    int done = 0;
    for (int i = 0; i < 400 && !done; i++) {
        assert_int_equal(harness_sh(out, sizeof out, "ls %s/points 2>/dev/null | grep -c '[.]json$' || true", outdir),
                         0);
        done = out[0] == '1';
        if (!done)
            nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
    }
    assert_true(done);
    kill(pid, SIGTERM);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 130);
    /* The hanging replay was stopped and reaped, and left nothing partial. */
    assert_int_equal(kill(hung, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/points | grep -c tmp", outdir), 1);
    assert_string_equal(out, "0\n");
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/points | grep -c json", outdir), 0);
    assert_string_equal(out, "1\n"); /* the 6-core point finished */
    unlink(sleeper);
    free(sleeper);
    free(outdir);
    free(s);
}

/* --timeout: the hanging point is killed and reported, the others run. */
static void test_timeout_stops_a_hung_point(void **state)
{
    (void)state;
    char *s = spec("to.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\n[axes]\ncpu.cores = 6, 7, 8\n");
    char *sleeper = NULL;
    assert_true(asprintf(&sleeper, "%s/sleeper", dir) > 0);
    time_t start = time(NULL);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/to -j 2 --timeout 0.5 --replay %s", sweep, s, dir,
                                replay),
                     1);
    assert_true(time(NULL) - start < 20); /* not the stand-in's 30 s */
    assert_non_null(strstr(out, "point 1 failed (cpu.cores=7): stopped after the timeout of 0.5 s"));
    /* The hung replay is gone; the 6- and 8-core points are done. */
    char *text = harness_read(sleeper);
    assert_non_null(text);
    assert_int_equal(kill((pid_t)atol(text), 0), -1);
    assert_int_equal(errno, ESRCH);
    free(text);
    text = table("to");
    assert_non_null(strstr(text, "6,6000,done,"));
    assert_non_null(strstr(text, "7,,failed,"));
    assert_non_null(strstr(text, "8,8000,done,"));
    free(text);
    unlink(sleeper);
    free(sleeper);
    /* A timeout that is not a positive number of seconds is a usage error. */
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/to --timeout 0", sweep, s, dir), 2);
    free(s);
}

static void test_slurm_array_matches_local(void **state)
{
    (void)state;
    char *s = spec("sl.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\n[axes]\ncpu.cores = 1..4\n"
                             "cache.l2.size = 256KiB, 512KiB\n");
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/local --replay %s", sweep, s, dir, replay), 1);
    /* Submitted without --wait: the stand-in runs the tasks anyway; collect writes the table. */
    assert_int_equal(harness_sh(out, sizeof out,
                                "PATH=%s:$PATH %s %s -o %s/slurm --slurm --partition short --time 10 --mem 1G "
                                "--max-running 3 --replay %s",
                                dir, sweep, s, dir, replay),
                     0);
    assert_non_null(strstr(out, "submitted job 4242: 8 points"));
    char *args = NULL;
    assert_true(asprintf(&args, "%s/sbatch_args", dir) > 0);
    char *a = harness_read(args);
    assert_non_null(a);
    assert_non_null(strstr(a, "--parsable --array=0-7%3 "));
    free(a);
    assert_int_equal(harness_sh(out, sizeof out, "cat %s/slurm/slurm/job-*.sh", dir), 0);
    assert_non_null(strstr(out, "#SBATCH --partition=short\n"));
    assert_non_null(strstr(out, "#SBATCH --time=10\n"));
    assert_non_null(strstr(out, "#SBATCH --mem=1G\n"));
    assert_int_equal(harness_sh(out, sizeof out, "%s collect %s -o %s/slurm --replay %s", sweep, s, dir, replay), 1);
    assert_non_null(strstr(out, "cpu.cores=3, cache.l2.size=256KiB"));
    assert_non_null(strstr(out, "stand-in failure for three cores"));
    char *local = table("local"), *slurm = table("slurm");
    assert_string_equal(local, slurm);
    free(local);
    free(slurm);
    /* Resubmitting sends only the failed points; --wait writes the table itself. */
    assert_int_equal(harness_sh(out, sizeof out, "PATH=%s:$PATH %s %s -o %s/slurm --slurm --wait --replay %s", dir,
                                sweep, s, dir, replay),
                     1);
    a = harness_read(args);
    assert_non_null(strstr(a, "--array=0-1 --wait"));
    free(a);
    assert_non_null(strstr(out, "8 points: 6 done, 2 failed"));
    free(args);
    free(s);
}

/* Whether DIR/OUTDIR/points/KEY.EXT exists. */
static int has_file(const char *outdir, const char *key, const char *ext)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s/points/%s.%s", dir, outdir, key, ext) > 0);
    int yes = access(path, F_OK) == 0;
    free(path);
    return yes;
}

static void test_windows_belong_to_their_point(void **state)
{
    (void)state;
    char *s = spec("w.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\nwindows = 250\nwindow_metric = load\n"
                            "[axes]\ncpu.cores = 1..3\n");
    char k1[33], k2[33], k3[33];
    key_with(s, replay, 1, k1);
    assert_non_null(strstr(out, "3 points = cpu.cores (3); each with its windows of 250 CPU cycles;"));
    key_with(s, replay, 2, k2);
    key_with(s, replay, 3, k3);
    int before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/w -j 2 --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls() - before, 3);
    assert_non_null(strstr(out, "point 2 failed (cpu.cores=3)"));
    assert_non_null(strstr(out, "--windows 250 --windows-out ")); /* the command to rerun it asks for them */
    char *t = table("w"), want[1024];
    snprintf(want, sizeof want,
             "cpu.cores,cycles,status,result,windows\n1,1000,done,points/%s.json,points/%s.windows.jsonl\n"
             "2,2000,done,points/%s.json,points/%s.windows.jsonl\n3,,failed,,\n",
             k1, k1, k2, k2);
    assert_string_equal(t, want);
    assert_true(has_file("w", k2, "windows.jsonl"));
    assert_false(has_file("w", k3, "windows.jsonl"));
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/w/points | grep -c tmp", dir), 1);
    assert_string_equal(out, "0\n");

    /* One table of every point's windows, by the stand-in's rule (CORES
     * windows of 250 cycles, the K-th with load 10 x CORES + K); the failed
     * point has none, which makes the status 1. */
    assert_int_equal(harness_sh(out, sizeof out, "%s windows %s -o %s/w --replay %s", sweep, s, dir, replay), 1);
    assert_non_null(strstr(out, "point 2 (cpu.cores=3) has no windows: failed"));
    char *path = NULL;
    assert_true(asprintf(&path, "%s/w/windows.csv", dir) > 0);
    char *w = harness_read(path);
    assert_non_null(w);
    snprintf(want, sizeof want, "cpu.cores,window,begin_cycle,load\n1,0,0,%d\n2,0,0,%d\n2,1,%d,%d\n", 10 * 1 + 0,
             10 * 2 + 0, 1 * 250, 10 * 2 + 1);
    assert_string_equal(w, want);
    free(w);
    /* --metric replaces the spec's window_metric lines */
    assert_int_equal(harness_sh(out, sizeof out, "%s windows --metric cycles %s -o %s/w --replay %s", sweep, s, dir,
                                replay),
                     1);
    w = harness_read(path);
    assert_string_equal(w, "cpu.cores,window,begin_cycle,cycles\n1,0,0,250\n2,0,0,250\n2,1,250,250\n");
    free(w);

    /* A point whose windows are missing is not done: a rerun runs it (and
     * the failed one), no other. */
    assert_int_equal(harness_sh(out, sizeof out, "rm %s/w/points/%s.windows.jsonl", dir, k2), 0);
    before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/w --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls() - before, 2);
    assert_true(has_file("w", k2, "windows.jsonl"));
    char *t2 = table("w");
    assert_string_equal(t, t2);
    free(t2);

    /* The window length is part of the key: the same point without windows,
     * or with others, is another result. */
    char *none = spec("w0.ini", "[sweep]\ntrace = t.cgt\n[axes]\ncpu.cores = 1..3\n");
    char *other = spec("w5.ini", "[sweep]\ntrace = t.cgt\nwindows = 500\n[axes]\ncpu.cores = 1..3\n");
    char k_none[33], k_other[33];
    key_with(none, replay, 1, k_none);
    key_with(other, replay, 1, k_other);
    assert_string_not_equal(k1, k_none);
    assert_string_not_equal(k1, k_other);
    assert_string_not_equal(k_none, k_other);

    /* A replay that exits 0 but wrote no windows failed: its statistics are
     * not kept, nothing partial is left. */
    char *five = spec("w5c.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\nwindows = 250\n[axes]\ncpu.cores = 5\n");
    char k5[33];
    key_with(five, replay, 5, k5);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/w5 --replay %s", sweep, five, dir, replay), 1);
    assert_non_null(strstr(out, "point 0 failed (cpu.cores=5): replay wrote no windows"));
    assert_false(has_file("w5", k5, "json"));
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/w5/points | grep -c tmp", dir), 1);
    assert_string_equal(out, "0\n");

    /* On Slurm: the job passes the windows, and collect and `sweep windows`
     * give the local run's tables byte for byte. */
    assert_int_equal(harness_sh(out, sizeof out, "PATH=%s:$PATH %s %s -o %s/wsl --slurm --replay %s", dir, sweep, s,
                                dir, replay),
                     0);
    assert_int_equal(harness_sh(out, sizeof out, "grep -c '^windows=250$' %s/wsl/slurm/job-*.sh", dir), 0);
    assert_int_equal(harness_sh(out, sizeof out, "%s collect %s -o %s/wsl --replay %s", sweep, s, dir, replay), 1);
    t2 = table("wsl");
    assert_string_equal(t, t2);
    free(t2);
    /* the failed point has no windows (status 1); both tables are written */
    assert_int_equal(harness_sh(out, sizeof out, "%s windows %s -o %s/wsl --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(harness_sh(out, sizeof out, "%s windows %s -o %s/w --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(harness_sh(out, sizeof out, "cmp %s/w/windows.csv %s/wsl/windows.csv", dir, dir), 0);
    assert_int_equal(harness_sh(out, sizeof out, "ls %s/wsl/points | grep -c tmp", dir), 1);
    assert_string_equal(out, "0\n");
    free(t);
    free(path);
    free(s);
    free(none);
    free(other);
    free(five);
}

/* Every metric is checked against the statistics the points will report
 * (replay --list-stats) before any point runs: a typo stops the sweep with
 * nothing run, by --dry-run too; a metric the list has but no result does
 * leaves its column empty in a table that is still written. */
static void test_metrics_checked_before_running(void **state)
{
    (void)state;
    char *s = spec("typo.ini", "[sweep]\ntrace = t.cgt\nmetric = cycles\nmetric = roi.cyclez\n[axes]\ncpu.cores = 1..4\n");
    int before = calls();
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/typo -j2 --replay %s", sweep, s, dir, replay), 1);
    assert_int_equal(calls(), before); /* nothing ran */
    assert_non_null(strstr(out, "checked before running, against the statistics of 4 points"));
    assert_non_null(strstr(out, "metric 'roi.cyclez': no 'roi' at the top (keys: cycles, instructions"));
    char *path = NULL;
    assert_true(asprintf(&path, "%s/typo/table.csv", dir) > 0);
    assert_false(access(path, F_OK) == 0);
    free(path);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/typo --dry-run --replay %s", sweep, s, dir, replay), 1);
    assert_non_null(strstr(out, "4 points = cpu.cores (4)"));
    assert_non_null(strstr(out, "no 'roi' at the top"));
    assert_int_equal(calls(), before);
    /* --metric is checked the same way, an alias named */
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/typo --dry-run --metric 'k = cyclez' --replay %s",
                                sweep, s, dir, replay), 1);
    assert_non_null(strstr(out, "column k: metric 'cyclez'"));
    /* window metrics against a window's statistics */
    char *w = spec("wtypo.ini", "[sweep]\ntrace = t.cgt\nwindows = 100\nmetric = cycles\nwindow_metric = lod\n"
                                "[axes]\ncpu.cores = 1, 2\n");
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/wtypo --replay %s", sweep, w, dir, replay), 1);
    assert_non_null(strstr(out, "window_metric 'lod': no 'lod' at the top"));
    assert_int_equal(calls(), before);

    /* Listed but in no result: the points run, the table is written with
     * the other columns, the sweep fails naming the metric; an alias names
     * its column. -j2 is -j 2. */
    char *l = spec("listed.ini", "[sweep]\ntrace = t.cgt\nmetric = kilocycles = cycles\nmetric = listed_only\n"
                                 "[axes]\ncpu.cores = 1, 2\n");
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/listed -j2 --replay %s", sweep, l, dir, replay), 1);
    assert_int_equal(calls() - before, 2);
    assert_non_null(strstr(out, "listed_only"));
    assert_non_null(strstr(out, "its column of the table is empty"));
    char *t = table("listed");
    assert_non_null(strstr(t, "cpu.cores,kilocycles,listed_only,status,result\n1,1000,,done,points/"));
    assert_non_null(strstr(t, "\n2,2000,,done,points/"));
    free(t);

    /* A replay that cannot list its statistics: nothing is checked (a note
     * says so) and the run finds out. */
    char *mute = harness_write(dir, "replay-mute", "#!/bin/sh\nexit 0\n", 1);
    assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/typo --dry-run --replay %s", sweep, s, dir, mute), 0);
    assert_non_null(strstr(out, "could not list their statistics"));
    assert_non_null(strstr(out, "the metrics are not checked before the run"));
    free(mute);
    free(s);
    free(w);
    free(l);
}

/* Alias columns are columns: one name each, not an axis' or the table's. */
static void test_alias_columns_are_unique(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "[sweep]\ntrace = t.cgt\nmetric = a = cycles\nmetric = a = ipc\n", "metric a is given twice (a = cycles, a = ipc)" },
        { "[sweep]\ntrace = t.cgt\nmetric = cycles\nmetric = cycles = ipc\n", "metric cycles is given twice" },
        { "[sweep]\ntrace = t.cgt\nmetric = cpu.cores = cycles\n[axes]\ncpu.cores = 1, 2\n", "has the name of axis cpu.cores" },
        { "[sweep]\ntrace = t.cgt\nmetric = status = cycles\n", "has the name of the table's own column" },
        { "[sweep]\ntrace = t.cgt\nmetric = a b = cycles\n", "'a b' is not a column name" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *s = spec("alias.ini", bad[i][0]);
        assert_int_equal(harness_sh(out, sizeof out, "%s %s -o %s/alias --dry-run --replay %s", sweep, s, dir, replay),
                         1);
        if (!strstr(out, bad[i][1]))
            fail_msg("expected '%s' in:\n%s", bad[i][1], out);
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failure_isolated_and_rerun_skips),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_signal_stops_cleanly),
        cmocka_unit_test(test_timeout_stops_a_hung_point),
        cmocka_unit_test(test_slurm_array_matches_local),
        cmocka_unit_test(test_windows_belong_to_their_point),
        cmocka_unit_test(test_metrics_checked_before_running),
        cmocka_unit_test(test_alias_columns_are_unique),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
