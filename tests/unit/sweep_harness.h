/* Helpers for the sweep tool's tests: shell commands with their output,
 * temporary folders, whole files. Linked into every unit test. */
#ifndef TESTS_UNIT_SWEEP_HARNESS_H
#define TESTS_UNIT_SWEEP_HARNESS_H

#include <stddef.h>

/* Runs the shell command made from FMT with standard error joined to
 * standard output, which goes to OUT (NUL-terminated, cut to OUTLEN).
 * Returns the exit status (-1 if the command did not exit). */
int harness_sh(char *out, size_t outlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A new empty folder /tmp/cgm_sweep_XXXXXX (the caller frees the name). */
char *harness_tmpdir(void);

/* rm -rf DIR. */
void harness_rmdir(const char *dir);

/* Writes TEXT to DIR/NAME (mode 0755 when EXEC); returns the path (freed by the caller). */
char *harness_write(const char *dir, const char *name, const char *text, int exec);

/* The whole of PATH, or NULL (the caller frees it). */
char *harness_read(const char *path);

/* $CGM_BIN/NAME and $CGM_ROOT/REL (the caller frees them). */
char *harness_bin(const char *name);
char *harness_root(const char *rel);

#endif
