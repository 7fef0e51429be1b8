/* The statistics registry: every model and the replayer register each of
 * their statistics once, into one tree of named groups; the JSON writer,
 * the region-of-interest snapshots and the text summaries all walk that
 * tree.
 *
 * A counter is a 64-bit count the registry reads when a snapshot is taken,
 * through a pointer into its owner's statistics or a function. A snapshot is
 * an array of every counter's value (cgm_stats_slots of them), so a region
 * of interest is the difference of two snapshots. Everything else is
 * computed when printing from the values of one snapshot (or of a
 * difference): ratios and averages, so they hold for a region of interest
 * as for the whole run; labels, ids and constants, which name or describe
 * rather than count, and peaks (maxima), which are never subtracted.
 *
 * Groups are JSON objects and arrays; members print in the order they were
 * registered. Names inside an array's elements are NULL. */
#ifndef CGM_STATS_H
#define CGM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

struct cgm_stats;

/* A group or value of the registry; negative when registration failed
 * (out of memory), which every registration function passes on: check
 * cgm_stats_failed once after registering. */
typedef int cgm_stat;
#define CGM_STATS_ROOT 0

struct cgm_stats *cgm_stats_create(void);
void cgm_stats_destroy(struct cgm_stats *s);
/* True if any registration ran out of memory. */
bool cgm_stats_failed(const struct cgm_stats *s);

/* ---- groups -------------------------------------------------------------- */
cgm_stat cgm_stats_object(struct cgm_stats *s, cgm_stat parent, const char *name);
cgm_stat cgm_stats_array(struct cgm_stats *s, cgm_stat parent, const char *name);
/* The member of group called name, or -1. */
cgm_stat cgm_stats_child(const struct cgm_stats *s, cgm_stat group, const char *name);

/* ---- counters (snapshotted, subtracted for a region of interest) ---------- */
cgm_stat cgm_stat_counter(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p);
typedef uint64_t (*cgm_stat_fn)(const void *ctx);
/* A copy of size bytes at ctx that lives as long as the registry (for a
 * function's context made of several pointers); NULL when out of memory. */
const void *cgm_stats_keep(struct cgm_stats *s, const void *ctx, size_t size);
cgm_stat cgm_stat_computed(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat_fn fn,
                           const void *ctx);
/* N counters printed as an array of log2 buckets: bucket i counts values in
 * [2^(i-1), 2^i) (bucket 0: zero). Printed as {from, below, count} objects
 * for the non-empty buckets. */
cgm_stat cgm_stat_histogram(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p,
                            unsigned n);
/* The counters of a name table (e.g. message types): an object with one
 * counter per name, names[i] counting p[i], each reachable by path like
 * any counter. Members whose name is NULL are left out (no slot, not
 * printed). */
cgm_stat cgm_stat_counters(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p,
                           const char *const *names, unsigned n);

/* ---- values never subtracted ---------------------------------------------- */
cgm_stat cgm_stat_label(struct cgm_stats *s, cgm_stat group, const char *name, const char *text);
/* A label whose text is known only later (a kernel's name, learnt when it
 * is launched): read from TEXT when printing, which must live as long as
 * the registry. */
cgm_stat cgm_stat_label_ref(struct cgm_stats *s, cgm_stat group, const char *name, const char *text);
/* A number that names something (a core's id, a thread's tid). */
cgm_stat cgm_stat_id(struct cgm_stats *s, cgm_stat group, const char *name, uint64_t v);
/* A property of the configuration; name NULL: used by ratios, not printed. */
cgm_stat cgm_stat_constant(struct cgm_stats *s, cgm_stat group, const char *name, double v);
/* A maximum (read at the snapshot like a counter, never subtracted: a
 * region of interest shows the peak up to its end). */
cgm_stat cgm_stat_peak(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p);
cgm_stat cgm_stat_peak_computed(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat_fn fn,
                                const void *ctx);
/* A level (how many things are in some state now: pages of a class),
 * which may fall: read at the snapshot, never subtracted (a region of
 * interest shows the level at its end), as a peak is. */
cgm_stat cgm_stat_level(struct cgm_stats *s, cgm_stat group, const char *name, const uint64_t *p);

/* ---- derived when printing ------------------------------------------------ */
/* num / den * mul / div, 0 when den is 0. num and den are counters,
 * constants, peaks or other ratios; name NULL: used by other ratios, not
 * printed. mul and div are applied only when they are not 1, so a plain
 * ratio is exactly num / den. */
cgm_stat cgm_stat_ratio(struct cgm_stats *s, cgm_stat group, const char *name, cgm_stat num,
                        cgm_stat den, double mul, double div);

/* ---- snapshots -------------------------------------------------------------- */
size_t cgm_stats_slots(const struct cgm_stats *s);
/* Reads every counter and peak into values (cgm_stats_slots entries). */
void cgm_stats_read(const struct cgm_stats *s, uint64_t *values);
/* end -= begin for every counter (peaks keep end's value). */
void cgm_stats_subtract(const struct cgm_stats *s, uint64_t *end, const uint64_t *begin);
/* sum += end - begin for every counter, sum = end for every peak: regions
 * of interest added up, as one region would show them. */
void cgm_stats_accumulate(const struct cgm_stats *s, uint64_t *sum, const uint64_t *end, const uint64_t *begin);
/* The value one counter, computed counter or peak has now (0 for any other
 * node): for a reader that follows a few counters without a snapshot of
 * them all. */
uint64_t cgm_stats_read_one(const struct cgm_stats *s, cgm_stat node);

/* ---- reading ---------------------------------------------------------------- */
/* The value of a numeric node (counter, peak, constant, id, ratio) in values. */
double cgm_stats_value(const struct cgm_stats *s, const uint64_t *values, cgm_stat node);
/* A node by path from group: members by name, array elements by index,
 * separated by dots: "caches.3.misses". -1 if there is none. */
cgm_stat cgm_stats_find(const struct cgm_stats *s, cgm_stat group, const char *path);
/* Members of a group, in order; the label of a label node (else NULL). */
unsigned cgm_stats_count(const struct cgm_stats *s, cgm_stat group);
cgm_stat cgm_stats_member(const struct cgm_stats *s, cgm_stat group, unsigned i);
const char *cgm_stats_label_of(const struct cgm_stats *s, cgm_stat node);

/* ---- reading by path, safely ---------------------------------------------------- */
/* For a reader that asks for statistics by name (a text summary, a report):
 * a path the registry does not have, or one that names no number (a group,
 * a label), is an error naming it, never a 0. A reader keeps the first
 * such path in missing (the whole path from the root, "cores.0.ipcx");
 * each value it could not find reads as NaN. */
struct cgm_stats_reader {
    const struct cgm_stats *s;
    const uint64_t *values;        /* a snapshot (cgm_stats_read) or a difference */
    char missing[160];             /* "" while every path was found */
};
/* The number at PATH under GROUP. */
double cgm_stats_get(struct cgm_stats_reader *r, cgm_stat group, const char *path);
/* The text of label PATH under GROUP; NULL (and recorded) when there is none. */
const char *cgm_stats_get_label(struct cgm_stats_reader *r, cgm_stat group, const char *path);
/* NODE's path from the root ("caches.3.misses"), PATH appended when it is
 * not NULL; cut short to fit LEN. */
void cgm_stats_path(const struct cgm_stats *s, cgm_stat node, const char *path, char *buf, size_t len);

/* ---- JSON --------------------------------------------------------------------- */
/* The subtree at node as cJSON (the caller owns it), with values. NULL when
 * out of memory. */
cJSON *cgm_stats_json(const struct cgm_stats *s, const uint64_t *values, cgm_stat node);
/* Prints the subtree at node with the values read now. Returns 0 or -1. */
int cgm_stats_write_json(const struct cgm_stats *s, cgm_stat node, FILE *out);

#endif
