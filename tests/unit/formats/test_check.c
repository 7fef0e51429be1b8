/* CGM_CHECK: with CGM_CHECKS a false invariant aborts with file, line and
 * condition, a true one goes on; cgm_oom names what it could not allocate
 * and aborts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#undef CGM_CHECKS
#define CGM_CHECKS 1
#include "cgm/check.h"

static int evaluations;
static int counted(int v)
{
    evaluations++;
    return v;
}

static void test_true_check_passes(void **state)
{
    (void)state;
    evaluations = 0;
    CGM_CHECK(counted(1));
    assert_int_equal(evaluations, 1);
}

/* Runs fn in a child; returns its stderr in buf and asserts it died of SIGABRT. */
static void child_aborts(void (*fn)(void), char *buf, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    memset(buf, 0, size);
    size_t n = 0;
    ssize_t r;
    while (n < size - 1 && (r = read(fds[0], buf + n, size - 1 - n)) > 0)
        n += (size_t)r;
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void failing_check(void)
{
    int queue_length = 3;
    CGM_CHECK(queue_length == 0);
}

static void test_false_check_aborts_with_message(void **state)
{
    (void)state;
    char buf[512];
    child_aborts(failing_check, buf, sizeof buf);
    assert_non_null(strstr(buf, "test_check.c:"));
    assert_non_null(strstr(buf, "queue_length == 0"));
}

static void out_of_memory(void) { cgm_oom("the packet pool"); }

static void test_oom_names_what(void **state)
{
    (void)state;
    char buf[512];
    child_aborts(out_of_memory, buf, sizeof buf);
    assert_non_null(strstr(buf, "out of memory: the packet pool"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_true_check_passes),
        cmocka_unit_test(test_false_check_aborts_with_message),
        cmocka_unit_test(test_oom_names_what),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
