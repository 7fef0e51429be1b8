/* Opening a file a program was given to read (a trace, a configuration, a
 * code object): only a regular file (or a block device) is accepted, and
 * what is not one is refused before anything can block: opening a FIFO
 * for reading waits for a writer, reading a terminal waits for the user. */
#ifndef CGM_INPUT_H
#define CGM_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* A descriptor open for reading PATH, or -1 with ERR naming PATH and what
 * it is ("a FIFO", "a directory", ...) or the system's reason. */
int cgm_open_input(const char *path, char *err, size_t errlen);

/* The same as a stdio stream ("rb"). */
FILE *cgm_fopen_input(const char *path, char *err, size_t errlen);

#endif
