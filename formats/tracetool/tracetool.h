/* tracetool subcommands. Each takes the arguments after its name and
 * returns the process exit status. */
#ifndef CGM_TRACETOOL_H
#define CGM_TRACETOOL_H

#include <stdio.h>

#include "cgm/trace.h"

int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Opens FILE for a subcommand; prints the error and returns NULL. Warns on
 * stderr when the trace is incomplete. */
struct cgm_reader *tool_open(const char *cmd, const char *file);
/* Parses "CMD [--help] [-F|--FLAG] FILE", the shape of most subcommands.
 * FLAG may be NULL. Returns 0 with *FILE set, or the exit status to return
 * at once (0 after printing HELP, 2 on a usage error). */
int tool_simple_args(int argc, char **argv, const char *cmd, const char *help,
                     const char *flag, int *flag_set, const char **file);
/* Parses a non-negative decimal number; -1 on anything else. */
int tool_parse_u64(const char *s, unsigned long long *out);
/* The name of a record's type: an event's name, or "x86:0xNN"-style ranges. */
const char *tool_record_kind(const unsigned char *rec, size_t len, char *buf, size_t buflen);

#endif
