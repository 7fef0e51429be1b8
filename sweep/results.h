/* A sweep's folder: DIR/points/KEY.ini (the configuration replay ran with),
 * KEY.json (its statistics, renamed into place only when complete),
 * KEY.windows.jsonl (its windows, when the spec asks for them, renamed into
 * place before KEY.json), KEY.err (the messages of a run that failed), and
 * DIR/table.csv. Shared by the local runner, the Slurm backend, collect and
 * `sweep windows SPEC`. */
#ifndef SWEEP_RESULTS_H
#define SWEEP_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sweep/plan.h"

struct sweep_metric;

enum sweep_status { SWEEP_DONE, SWEEP_FAILED, SWEEP_PENDING, SWEEP_NO_TRACE };

#define SWEEP_WINDOWS_EXT "windows.jsonl"

/* DIR/points/KEY.EXT; the caller frees it. */
char *sweep_result_path(const char *dir, const char *key, const char *ext);

/* Done: the point has its statistics and, when the spec asks for windows,
 * its windows; a point missing either runs again. */
enum sweep_status sweep_result_status(const struct sweep_plan *p, size_t i, const char *dir);
const char *sweep_status_name(enum sweep_status s);

/* Writes DIR/points/KEY.ini for every point without a result (or for every
 * point with RERUN). Returns the number of distinct keys to run, listed in
 * *todo (point indices, each key once), or -1 with a message. */
long sweep_prepare(const struct sweep_plan *p, const char *dir, bool rerun, size_t **todo, char *err,
                   size_t errlen);

/* The last non-empty line of a failed point's messages (DIR/points/KEY.err). */
char *sweep_failure_message(const char *dir, const char *key);

/* Writes DIR/table.csv (one row per point: its axes' values, then each
 * metric, its status, its result file and, with windows, its windows
 * file) and prints a summary to REPORT:
 * counts, and each failed point with its configuration and error. Returns
 * 0 when every point is done, 1 when some are not, -1 on an error: a file
 * that cannot be written, or a metric that matches nothing in any result
 * (the table is written all the same, that column empty). */
int sweep_table_write(const struct sweep_plan *p, const char *dir, char *const *metrics, size_t nmetrics,
                      FILE *report, char *err, size_t errlen);

/* The shortest text that reads back to V (integers as integers): how the
 * table writes numbers. */
void sweep_format_value(double v, char *buf, size_t len);

/* `sweep windows FILE.jsonl` (windows_cli.c): replay's window statistics
 * as a table. */
int sweep_windows_main(int argc, char **argv);
void sweep_windows_usage(FILE *out);

/* Writes the windows of IN (read a line at a time; NAME for messages) as
 * rows of OUT: PREFIX (CSV fields and their comma, or ""), the window's
 * number and first cycle, then each metric. 0, or -1 with a message naming
 * NAME and the line. */
int sweep_windows_rows(FILE *in, const char *name, FILE *out, const char *prefix,
                       struct sweep_metric *const *metrics, size_t nmetrics, char *err, size_t errlen);

/* `sweep windows SPEC.ini`: every point's windows as one table,
 * DIR/windows.csv: the axes' columns, window, begin_cycle, each metric.
 * Returns 0 when every point has its windows, 1 when some have not (they
 * are reported to REPORT and have no rows), -1 on an error. */
int sweep_windows_table(const struct sweep_plan *p, const char *dir, char *const *metrics, size_t nmetrics,
                        FILE *report, char *err, size_t errlen);

#endif
