/* The local runner (run.h). */
#include "sweep/run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep/results.h"
#include "sweep/util.h"

extern char **environ;

struct job {
    pid_t pid;
    size_t point;
    double start;
    bool timed_out;       /* killed for running past --timeout */
    char *tmp_json, *tmp_err, *tmp_windows; /* tmp_windows: NULL without windows */
};

struct runner {
    const struct sweep_plan *p;
    const struct sweep_run_opts *o;
    struct job *jobs;
    size_t total, started, running, done, failed;
    double busy;          /* seconds of finished runs, for the estimate */
    double last_draw;
    bool drawn;           /* a progress line is on screen */
    sigset_t child_mask;  /* what replay starts with: ours before we blocked SIGCHLD */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }
static void on_child(int sig) { (void)sig; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void clear_line(struct runner *r)
{
    if (r->drawn)
        fputs("\r\033[K", stderr);
    r->drawn = false;
}

static void draw(struct runner *r)
{
    if (!r->o->progress)
        return;
    char left[32] = "?";
    size_t finished = r->done + r->failed, remaining = r->total - finished;
    if (finished) {
        double per = r->busy / (double)finished;
        size_t par = (size_t)r->o->jobs < remaining ? (size_t)r->o->jobs : remaining;
        double secs = per * (double)remaining / (double)(par ? par : 1);
        if (secs < 90)
            snprintf(left, sizeof left, "%.0f s", secs);
        else
            snprintf(left, sizeof left, "%.0f min", secs / 60);
    }
    fprintf(stderr, "\r\033[Ksweep: %zu/%zu done, %zu running, %zu failed, %s left", r->done, r->total, r->running,
            r->failed, left);
    fflush(stderr);
    r->drawn = true;
    r->last_draw = now();
}

static void free_job(struct job *j)
{
    free(j->tmp_json);
    free(j->tmp_err);
    free(j->tmp_windows);
    j->tmp_json = j->tmp_err = j->tmp_windows = NULL;
    j->pid = 0;
}

static int spawn(struct runner *r, struct job *j, size_t point, char *err, size_t errlen)
{
    const struct sweep_plan *p = r->p;
    const char *key = p->points[point].key, *dir = r->o->dir;
    char *ini = sweep_result_path(dir, key, "ini");
    j->point = point;
    j->tmp_json = xasprintf("%s/points/%s.json.tmp.%ld", dir, key, (long)getpid());
    j->tmp_err = xasprintf("%s/points/%s.err.tmp.%ld", dir, key, (long)getpid());
    char window[32];
    snprintf(window, sizeof window, "%llu", p->spec->windows);
    j->tmp_windows = p->spec->windows
                         ? xasprintf("%s/points/%s.%s.tmp.%ld", dir, key, SWEEP_WINDOWS_EXT, (long)getpid())
                         : NULL;
    char *argv[12] = { (char *)r->o->replay, "-q", "-c", ini, "-o", j->tmp_json }, **arg = argv + 6;
    if (j->tmp_windows) {
        *arg++ = "--windows";
        *arg++ = window;
        *arg++ = "--windows-out";
        *arg++ = j->tmp_windows;
    }
    *arg = p->traces[p->points[point].trace].path;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, j->tmp_err, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &r->child_mask);
    sigset_t dfl;
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGHUP);
    sigaddset(&dfl, SIGCHLD);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = strchr(r->o->replay, '/') ? posix_spawn(&j->pid, r->o->replay, &fa, &at, argv, environ)
                                       : posix_spawnp(&j->pid, r->o->replay, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(ini);
    if (rc) {
        snprintf(err, errlen, "cannot run %s: %s", r->o->replay, strerror(rc));
        unlink(j->tmp_err);
        free_job(j);
        return -1;
    }
    j->start = now();
    j->timed_out = false;
    r->running++;
    r->started++;
    return 0;
}

/* A point's results take their names windows first, statistics last: a
 * point whose KEY.json is there has everything (a sweep that dies between
 * the two renames leaves a point without statistics, which runs again). */
static bool publish(const struct job *j, const char *json, const char *windows, char *why, size_t whylen)
{
    if (!file_exists(j->tmp_json)) {
        snprintf(why, whylen, "replay wrote no statistics");
        return false;
    }
    if (windows && !file_exists(j->tmp_windows)) {
        snprintf(why, whylen, "replay wrote no windows");
        return false;
    }
    if ((windows && rename(j->tmp_windows, windows)) || rename(j->tmp_json, json)) {
        snprintf(why, whylen, "cannot rename the results into place: %s", strerror(errno));
        return false;
    }
    return true;
}

static void finish(struct runner *r, struct job *j, int status)
{
    const struct sweep_plan *p = r->p;
    const char *key = p->points[j->point].key, *dir = r->o->dir;
    double secs = now() - j->start;
    char *json = sweep_result_path(dir, key, "json"), *errf = sweep_result_path(dir, key, "err");
    char *windows = j->tmp_windows ? sweep_result_path(dir, key, SWEEP_WINDOWS_EXT) : NULL;
    char why[128] = "";
    bool ok = false;
    if (j->timed_out)
        snprintf(why, sizeof why, "stopped after the timeout of %g s", r->o->timeout);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "replay was killed by signal %d", WTERMSIG(status));
    else if (WEXITSTATUS(status))
        snprintf(why, sizeof why, "replay exited with status %d", WEXITSTATUS(status));
    else
        ok = publish(j, json, windows, why, sizeof why);
    if (!ok) {
        unlink(j->tmp_json);
        if (j->tmp_windows)
            unlink(j->tmp_windows);
        rename(j->tmp_err, errf);
    } else {
        unlink(j->tmp_err);
        unlink(errf); /* a failure of an earlier run is no longer true */
    }
    r->busy += secs;
    r->running--;
    clear_line(r);
    if (ok) {
        r->done++;
        if (r->o->verbose) {
            char *d = sweep_plan_describe(p, j->point);
            fprintf(stderr, "sweep: point %zu done in %.1f s (%s)\n", j->point, secs, d);
            free(d);
        }
    } else {
        r->failed++;
        char *d = sweep_plan_describe(p, j->point), *msg = sweep_failure_message(dir, key);
        char *more = windows ? xasprintf("--windows %llu --windows-out %s ", p->spec->windows, windows) : xstrdup("");
        fprintf(stderr, "sweep: point %zu failed (%s): %s: %s\n  rerun by hand: %s -c %s/points/%s.ini %s%s\n",
                j->point, d, why, msg, r->o->replay, dir, key, more, p->traces[p->points[j->point].trace].path);
        free(more);
        free(d);
        free(msg);
    }
    free(json);
    free(errf);
    free(windows);
    free_job(j);
}

static void reap(struct runner *r)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        for (int k = 0; k < r->o->jobs; k++)
            if (r->jobs[k].pid == pid)
                finish(r, &r->jobs[k], status);
}

/* --timeout: a point running longer is killed (finish() reports it). */
static void stop_late(struct runner *r)
{
    double t = now();
    for (int k = 0; r->o->timeout > 0 && k < r->o->jobs; k++) {
        struct job *j = &r->jobs[k];
        if (j->pid && !j->timed_out && t - j->start > r->o->timeout) {
            j->timed_out = true;
            kill(j->pid, SIGKILL);
        }
    }
}

/* A signal: stop the running points, remove their partial files. */
static void stop_all(struct runner *r)
{
    for (int k = 0; k < r->o->jobs; k++)
        if (r->jobs[k].pid)
            kill(r->jobs[k].pid, SIGTERM);
    for (int k = 0; k < r->o->jobs; k++) {
        struct job *j = &r->jobs[k];
        if (!j->pid)
            continue;
        waitpid(j->pid, NULL, 0);
        unlink(j->tmp_json);
        unlink(j->tmp_err);
        if (j->tmp_windows)
            unlink(j->tmp_windows);
        free_job(j);
    }
    clear_line(r);
    fprintf(stderr, "sweep: stopped by signal %d: %zu of %zu points ran, %zu failed; run the same command again to "
                    "resume\n", (int)stop_signal, r->done, r->total, r->failed);
}

int sweep_run_local(const struct sweep_plan *p, const struct sweep_run_opts *o, char *err, size_t errlen)
{
    size_t *todo;
    long n = sweep_prepare(p, o->dir, o->rerun, &todo, err, errlen);
    if (n < 0)
        return -1;
    struct runner r = { .p = p, .o = o, .total = (size_t)n };
    r.jobs = xcalloc((size_t)o->jobs, sizeof *r.jobs);
    struct sigaction sa, old_int, old_term, old_hup, old_chld;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, &old_chld);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &r.child_mask);
    stop_signal = 0;
    int rc = 0;
    size_t next = 0;
    while ((next < r.total || r.running) && !stop_signal && !rc) {
        for (int k = 0; k < o->jobs && next < r.total && !stop_signal && !rc; k++)
            if (!r.jobs[k].pid)
                rc = spawn(&r, &r.jobs[k], todo[next++], err, errlen);
        if (rc)
            break;
        if (now() - r.last_draw >= 0.5)
            draw(&r);
        struct timespec wait = { 0, 500000000 };
        sigtimedwait(&chld, NULL, &wait); /* a child ended, half a second passed, or a signal came */
        stop_late(&r);
        reap(&r);
    }
    if (stop_signal) {
        stop_all(&r);
        rc = 130;
    } else if (rc) {
        /* replay cannot be started: let the running points finish first. */
        while (r.running) {
            sigtimedwait(&chld, NULL, &(struct timespec){ 1, 0 });
            reap(&r);
        }
        rc = -1;
    } else {
        clear_line(&r);
        rc = r.failed ? 1 : 0;
    }
    sigprocmask(SIG_SETMASK, &r.child_mask, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    free(r.jobs);
    free(todo);
    return rc;
}
