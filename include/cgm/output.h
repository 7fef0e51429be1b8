/* Standard output that could not be written (a full disk, a closed pipe)
 * must not end a program with status 0: a report, a dump or statistics
 * were lost. */
#ifndef CGM_OUTPUT_H
#define CGM_OUTPUT_H

/* Makes the program, at exit, flush and close standard output and, when
 * that fails, say so on stderr (as PROGRAM) and exit with status 1. */
void cgm_check_stdout_at_exit(const char *program);

#endif
