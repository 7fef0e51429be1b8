/* bin/replay run as a user runs it, for the tests of its files (JSON,
 * windows, per-launch lines). Finds the program through CGM_BIN. Linked
 * into every unit test. */
#ifndef TESTS_UNIT_REPLAY_CLI_H
#define TESTS_UNIT_REPLAY_CLI_H

#include <stddef.h>

#include <cJSON.h>

/* Runs `replay -q ARGS` (printf-style) and returns what it printed on
 * standard output and error (free it); fails the test unless it exits 0. */
char *replay_cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The whole of the file at PATH (free it); fails the test if it cannot be read. */
char *read_whole_file(const char *path);

/* The JSON file at PATH, parsed (cJSON_Delete it). */
cJSON *read_json_file(const char *path);

/* The file at PATH as one JSON object per line, parsed; their number in *N. */
cJSON **read_json_lines(const char *path, size_t *n);
void free_json_lines(cJSON **lines, size_t n);

/* The number at PATH in a cJSON tree (keys separated by dots, array
 * entries by index), 0 if there is none. */
double json_number_or_0(const cJSON *json, const char *path);

#endif
