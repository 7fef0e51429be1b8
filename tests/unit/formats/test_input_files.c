/* A FIFO, a directory or a device given as a trace (or configuration, or
 * code object: they open with cgm_open_input too) is refused at once with
 * what it is, instead of blocking the program (opening a FIFO for reading
 * waits for a writer). An alarm fails the test if anything blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgm/input.h"
#include "cgm/trace.h"

static char dir[] = "/tmp/cgm_input_XXXXXX";
static char fifo[64];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    alarm(60);
    return mkfifo(fifo, 0644);
}

static int teardown(void **state)
{
    (void)state;
    unlink(fifo);
    rmdir(dir);
    return 0;
}

static void test_fifo_is_refused(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(cgm_open_input(fifo, err, sizeof err), -1);
    assert_non_null(strstr(err, fifo));
    assert_non_null(strstr(err, "FIFO"));
    assert_null(cgm_reader_open(fifo, err, sizeof err));
    assert_non_null(strstr(err, "FIFO"));
    assert_int_equal(cgm_trace_verify(fifo, err, sizeof err), -1);
    assert_null(cgm_fopen_input(fifo, err, sizeof err));
}

static void test_directory_and_device_are_refused(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(cgm_open_input(dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "directory"));
    assert_int_equal(cgm_open_input("/dev/null", err, sizeof err), -1);
    assert_non_null(strstr(err, "character device"));
    assert_int_equal(cgm_open_input("/nonexistent/x", err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

static void test_regular_file_opens_blocking(void **state)
{
    (void)state;
    char path[96], err[512];
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *w = fopen(path, "w");
    assert_non_null(w);
    fputs("data\n", w);
    fclose(w);
    FILE *f = cgm_fopen_input(path, err, sizeof err);
    assert_non_null(f);
    char line[16];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "data\n");
    fclose(f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_is_refused),
        cmocka_unit_test(test_directory_and_device_are_refused),
        cmocka_unit_test(test_regular_file_opens_blocking),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
