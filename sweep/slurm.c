/* The Slurm backend (slurm.h). */
#include "sweep/slurm.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep/results.h"
#include "sweep/util.h"

extern char **environ;

/* The task script: line SLURM_ARRAY_TASK_ID + 1 of the tasks file names
 * the point's key and trace; the results appear under their final names
 * only when replay has succeeded (mv within one file system is a rename),
 * the windows (when $windows is set) before the statistics, as the local
 * runner does. */
static const char TASK_BODY[] =
    "set -u\n"
    "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$tasks\")\n"
    "key=${line%%\t*}\n"
    "trace=${line#*\t}\n"
    "id=${SLURM_JOB_ID:-$$}\n"
    "tmp=\"$points/$key.json.tmp.slurm$id\"\n"
    "err=\"$points/$key.err.tmp.slurm$id\"\n"
    "win=\"$points/$key." SWEEP_WINDOWS_EXT ".tmp.slurm$id\"\n"
    "set --\n"
    "if [ -n \"$windows\" ]; then set -- --windows \"$windows\" --windows-out \"$win\"; fi\n"
    "if \"$replay\" -q -c \"$points/$key.ini\" -o \"$tmp\" \"$@\" \"$trace\" 2>\"$err\" &&\n"
    "    { [ -z \"$windows\" ] || mv -f \"$win\" \"$points/$key." SWEEP_WINDOWS_EXT "\" 2>>\"$err\"; }; then\n"
    "    mv -f \"$tmp\" \"$points/$key.json\" && rm -f \"$err\" \"$points/$key.err\"\n"
    "else\n"
    "    status=$?\n"
    "    rm -f \"$tmp\" \"$win\"\n"
    "    mv -f \"$err\" \"$points/$key.err\"\n"
    "    cat \"$points/$key.err\" >&2\n"
    "    exit \"$status\"\n"
    "fi\n";

static char *absolute(const char *path, char *err, size_t errlen)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    return xstrdup(buf);
}

static void sbatch_line(FILE *f, const char *opt, const char *value)
{
    if (value)
        fprintf(f, "#SBATCH --%s=%s\n", opt, value);
}

static char *write_script(const struct sweep_plan *p, const struct sweep_slurm_opts *o, const char *adir,
                          const char *stamp, const char *tasks, char *err, size_t errlen)
{
    const char *name = strrchr(p->spec->file, '/');
    name = name ? name + 1 : p->spec->file;
    char *replay = strchr(o->replay, '/') ? absolute(o->replay, err, errlen) : xstrdup(o->replay);
    if (!replay)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "#!/bin/sh\n# One task of the sweep %s: replays the point on line SLURM_ARRAY_TASK_ID + 1 of\n"
               "# %s (key, tab, trace) with the configuration %s/points/KEY.ini.\n",
            p->spec->file, tasks, adir);
    fprintf(f, "#SBATCH --job-name=sweep-%.*s\n", (int)strcspn(name, "."), name);
    fprintf(f, "#SBATCH --output=%s/slurm/%%A_%%a.out\n", adir);
    sbatch_line(f, "partition", o->partition);
    sbatch_line(f, "time", o->time);
    sbatch_line(f, "mem", o->mem);
    fputs("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n", f);
    char *qt = shell_quote(tasks), *qp = xasprintf("%s/points", adir), *qpq = shell_quote(qp), *qr = shell_quote(replay);
    fprintf(f, "tasks=%s\npoints=%s\nreplay=%s\n", qt, qpq, qr);
    if (p->spec->windows)
        fprintf(f, "windows=%llu\n", p->spec->windows);
    else
        fputs("windows=\n", f);
    fputs(TASK_BODY, f);
    fclose(f);
    free(qt);
    free(qp);
    free(qpq);
    free(qr);
    free(replay);
    char *path = xasprintf("%s/slurm/job-%s.sh", adir, stamp);
    int rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    if (!rc && chmod(path, 0755)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc) {
        free(path);
        return NULL;
    }
    return path;
}

static char *write_tasks(const struct sweep_plan *p, const size_t *todo, size_t n, const char *adir,
                         const char *stamp, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        const struct sweep_point *pt = &p->points[todo[k]];
        char *trace = absolute(p->traces[pt->trace].path, err, errlen);
        if (!trace) {
            rc = -1;
        } else if (strpbrk(trace, "\t\n")) {
            snprintf(err, errlen, "%s: a trace path with a tab or a line break cannot go into the task list", trace);
            rc = -1;
        } else {
            fprintf(f, "%s\t%s\n", pt->key, trace);
        }
        free(trace);
    }
    fclose(f);
    char *path = xasprintf("%s/slurm/tasks-%s.txt", adir, stamp);
    if (!rc)
        rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    if (rc) {
        free(path);
        return NULL;
    }
    return path;
}

/* Runs sbatch and reads the job id it prints (--parsable: "ID[;CLUSTER]"). */
static int run_sbatch(const struct sweep_slurm_opts *o, size_t n, const char *script, char *jobid, size_t idlen,
                      int *status, char *err, size_t errlen)
{
    char array[64];
    if (o->max_running > 0)
        snprintf(array, sizeof array, "--array=0-%zu%%%d", n - 1, o->max_running);
    else
        snprintf(array, sizeof array, "--array=0-%zu", n - 1);
    const char **argv = xcalloc(o->nextra + 6, sizeof *argv);
    size_t a = 0;
    argv[a++] = o->sbatch;
    argv[a++] = "--parsable";
    argv[a++] = array;
    if (o->wait)
        argv[a++] = "--wait";
    for (size_t i = 0; i < o->nextra; i++)
        argv[a++] = o->extra[i];
    argv[a++] = script;
    argv[a] = NULL;
    int fd[2];
    if (pipe(fd)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        free(argv);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, o->sbatch, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        snprintf(err, errlen, "cannot run %s: %s (Slurm's client commands; Debian: slurm-client)", o->sbatch,
                 strerror(rc));
        return -1;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < idlen && (r = read(fd[0], jobid + got, idlen - got - 1)) > 0)
        got += (size_t)r;
    jobid[got] = 0;
    close(fd[0]);
    waitpid(pid, status, 0);
    jobid[strcspn(jobid, ";\n")] = 0;
    return 0;
}

int sweep_slurm_submit(const struct sweep_plan *p, const struct sweep_slurm_opts *o, char *err, size_t errlen)
{
    size_t *todo;
    long n = sweep_prepare(p, o->dir, o->rerun, &todo, err, errlen);
    if (n < 0)
        return -1;
    if (n == 0) {
        fprintf(stderr, "sweep: every point has a result; nothing to submit\n");
        free(todo);
        return 0;
    }
    char *slurmdir = xasprintf("%s/slurm", o->dir);
    char *adir = make_dirs(slurmdir, err, errlen) ? NULL : absolute(o->dir, err, errlen);
    free(slurmdir);
    char stamp[64];
    time_t t = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&t, &tm));
    snprintf(stamp + strlen(stamp), sizeof stamp - strlen(stamp), "-%ld", (long)getpid());
    char *tasks = adir ? write_tasks(p, todo, (size_t)n, adir, stamp, err, errlen) : NULL;
    char *script = tasks ? write_script(p, o, adir, stamp, tasks, err, errlen) : NULL;
    int rc = script ? 0 : -1;
    char jobid[128] = "";
    int status = 0;
    if (!rc)
        rc = run_sbatch(o, (size_t)n, script, jobid, sizeof jobid, &status, err, errlen);
    if (!rc && !jobid[0]) {
        snprintf(err, errlen, "%s refused the job (exit status %d); the script is %s", o->sbatch,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, script);
        rc = -1;
    }
    if (!rc && !o->wait)
        fprintf(stderr, "sweep: submitted job %s: %ld points as array tasks 0-%ld (%s)\n"
                        "sweep: when it has ended: sweep collect %s -o %s\n",
                jobid, n, n - 1, script, p->spec->file, o->dir);
    else if (!rc)
        fprintf(stderr, "sweep: job %s ended (%ld points)\n", jobid, n);
    free(adir);
    free(tasks);
    free(script);
    free(todo);
    return rc;
}
