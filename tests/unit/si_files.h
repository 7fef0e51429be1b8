/* Files the SI and GPU unit tests read: whole files (sources, captured
 * output, traces) and the disassembler corpus.  Linked into every unit test
 * program, so every name starts with si_test_. */
#ifndef CGM_TESTS_SI_FILES_H
#define CGM_TESTS_SI_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The whole file, NUL-terminated, in a malloc'd buffer; its length in *len
 * when len is not NULL.  NULL when it cannot be opened or read in full. */
char *si_test_read_file(const char *path, size_t *len);

/* $CGM_ROOT/tests/data/si/corpus.txt: lines of "HEXBYTES<tab>LLVM text".
 * Fails the test when it cannot be opened. */
FILE *si_test_open_corpus(void);

/* The bytes spelled in hex pairs at the start of S, up to a tab, the end of
 * the string or a character that is not hex; at most MAX.  Returns how many. */
size_t si_test_parse_hex(const char *s, uint8_t *out, size_t max);

#endif
