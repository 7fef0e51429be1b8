#include "tests/unit/x86_recording.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PATH_BYTES = 4096, ARGS_MAX = 16 };

/* $ENV/REL/NAME in a new string; the test fails when ENV is unset. */
static char *env_path(const char *env, const char *rel, const char *name)
{
    char *p = malloc(PATH_BYTES);
    assert_non_null(p);
    assert_non_null(getenv(env));
    snprintf(p, PATH_BYTES, "%s/%s%s", getenv(env), rel, name);
    return p;
}

void x86_record_guest(struct x86_recording *r, const char *name, const char *const *opts)
{
    r->guest = env_path("CGM_BUILD", "traces/x86/musl/", name);
    snprintf(r->path, sizeof r->path, "/tmp/cgm_x86_rec_XXXXXX");
    int fd = mkstemp(r->path);
    assert_true(fd >= 0);
    close(fd);

    char *tracegen = env_path("CGM_BIN", "", "tracegen");
    const char *argv[ARGS_MAX];
    size_t n = 0;
    argv[n++] = tracegen;
    argv[n++] = "--quiet";
    for (; *opts; opts++) {
        assert_true(n < ARGS_MAX - 5);
        argv[n++] = *opts;
    }
    argv[n++] = "-o";
    argv[n++] = r->path;
    argv[n++] = "--";
    argv[n++] = r->guest;
    argv[n] = NULL;

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = freopen("/dev/null", "w", stdout);
        (void)f;
        /* execv's argv is char *const[] for historical reasons; it does not write the strings */
        execv(tracegen, (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    free(tracegen);
}

void x86_recording_remove(struct x86_recording *r)
{
    unlink(r->path);
    free(r->guest);
    r->guest = NULL;
}
