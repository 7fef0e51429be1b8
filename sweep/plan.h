/* The points of a sweep: for each, its trace, its effective configuration
 * (the base file, [base], then each axis' setting, checked as replay checks
 * it) and its key, a hash of the trace's bytes, that configuration and,
 * when the spec asks for windows, their length. The key names the point's
 * results, so a rerun finds the points already done whatever order,
 * spelling or spec they came from. */
#ifndef SWEEP_PLAN_H
#define SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "replay/config.h"
#include "sweep/spec.h"

#define SWEEP_KEY_LEN 32 /* hex digits of a 128-bit hash */

struct sweep_trace_file {
    char *given;                      /* the trace line, template filled in, joined to the spec's folder */
    char *path;                       /* to open: the same made absolute when the file exists */
    char hash[SWEEP_KEY_LEN + 1];     /* of its bytes; "" when it cannot be read */
    char *error;                      /* why it cannot, or NULL */
    int line;                         /* its trace line in the spec */
};

struct sweep_point {
    size_t trace;                     /* index into traces */
    char key[SWEEP_KEY_LEN + 1];      /* "" when the trace is missing */
};

struct sweep_plan {
    const struct sweep_spec *spec;
    char program_hash[SWEEP_KEY_LEN + 1]; /* of the replay program's bytes */
    struct rp_config base;            /* defaults, config file, [base] */
    struct sweep_trace_file *traces;  /* distinct trace files */
    size_t ntraces;
    struct sweep_point *points;
    size_t npoints;
};

/* Builds every point of SPEC for the replay program whose bytes hash to
 * PROGRAM_HASH. A configuration that replay would refuse is an error naming
 * the point and its settings. A trace that cannot be read is an error unless
 * ALLOW_MISSING (then its points have no key). */
int sweep_plan_build(struct sweep_plan *p, const struct sweep_spec *spec, const char *program_hash,
                     bool allow_missing, char *err, size_t errlen);

void sweep_plan_free(struct sweep_plan *p);

/* Point I's effective configuration. */
void sweep_plan_config(const struct sweep_plan *p, size_t i, struct rp_config *cfg);

/* "axis=value, axis=value" for messages. The caller frees it. */
char *sweep_plan_describe(const struct sweep_plan *p, size_t i);

/* The value label of axis A for point I. */
const char *sweep_plan_label(const struct sweep_plan *p, size_t i, size_t a);

/* The configuration as replay's INI (rp_config_print), and the same without
 * comments or blank lines: what the key hashes. The caller frees both. */
char *sweep_config_ini(const struct rp_config *cfg);
char *sweep_config_canonical(const struct rp_config *cfg);

/* Hashes the bytes of PATH (XXH3-128, hex). Returns 0 or -1 with a message. */
int sweep_hash_file(const char *path, char out[SWEEP_KEY_LEN + 1], char *err, size_t errlen);

/* The key of a replay program's hash, a trace hash, the window length
 * (0: none) and a configuration. */
void sweep_point_key(const char *program_hash, const char *trace_hash, unsigned long long windows,
                     const struct rp_config *cfg, char out[SWEEP_KEY_LEN + 1]);

#endif
