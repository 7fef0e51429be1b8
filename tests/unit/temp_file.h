/* Temporary files for the tests. Linked into every unit test. */
#ifndef TESTS_UNIT_TEMP_FILE_H
#define TESTS_UNIT_TEMP_FILE_H

/* Creates a new file /tmp/cgm_test_XXXXXX holding TEXT (NULL: empty) and
 * returns its path, which stays valid until the program ends. Aborts the
 * program if the file cannot be made. */
const char *test_temp_file(const char *text);

#endif
