/* The configuration file's lines: inih splits a line longer than its
 * buffer (200 bytes) and reads the rest as a line of its own, so a long
 * comment could set a key unnoticed; such a line is an error, naming it.
 * A section or key given twice is an error naming both lines; an indented
 * line is an ordinary line (inih would take it for a continuation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"
#include "tests/unit/temp_file.h"

static int load(const char *text, struct rp_config *c, char *err, size_t errlen)
{
    rp_config_defaults(c);
    return rp_config_load(c, test_temp_file(text), err, errlen);
}

static void test_long_comment_sets_nothing(void **state)
{
    (void)state;
    /* the comment's last 10 characters start at byte 199 of the line */
    char text[512] = "[cpu]\n; ";
    size_t n = strlen(text);
    memset(text + n, 'x', 197);
    strcpy(text + n + 197, "cores = 64\n");
    struct rp_config c;
    char err[512];
    assert_int_equal(load(text, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, ":2: the line is longer than"));
    assert_int_equal(c.cores, 4); /* the default, untouched */
}

static void test_twice_is_an_error(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    assert_int_equal(load("[cpu]\ncores = 2\nfrequency = 3GHz\ncores = 3\n", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, ":4: key cpu.cores is given twice (first at line 2)"));
    assert_int_equal(load("[cpu]\ncores = 2\n\n[cpu]\nfrequency = 3GHz\n", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, ":4: section cpu is given twice (first at line 1)"));
}

static void test_indented_lines_are_lines(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    assert_int_equal(load("[cpu]\n    cores = 2\n\tquantum = 5000\n", &c, err, sizeof err), 0);
    assert_int_equal(c.cores, 2);
    assert_int_equal(c.quantum, 5000);
}

static void test_line_of_exactly_the_buffer_is_read(void **state)
{
    (void)state;
    /* 198 characters and the newline fill inih's buffer but do not overflow it */
    char text[512] = "[cpu]\ncores = 2 ;";
    size_t n = strlen(text);
    size_t line = n - strlen("[cpu]\n");
    memset(text + n, 'y', 198 - line);
    strcpy(text + n + (198 - line), "\n");
    struct rp_config c;
    char err[512];
    assert_int_equal(load(text, &c, err, sizeof err), 0);
    assert_int_equal(c.cores, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_comment_sets_nothing),
        cmocka_unit_test(test_twice_is_an_error),
        cmocka_unit_test(test_indented_lines_are_lines),
        cmocka_unit_test(test_line_of_exactly_the_buffer_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
