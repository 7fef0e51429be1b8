/* The key-table engine: configuration keys as rows of a table (section,
 * name, type and flags, offset into the owner's config struct, default,
 * range, value names, doc), with the one parser, range check, rule check,
 * printer and default-setter every table uses. A model owns the rows of
 * its own parameters (e.g. cgm/memsys_keys.def over struct
 * cgm_memsys_config); replay composes the models' rows into its table. */
#ifndef CGM_KEYS_H
#define CGM_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The low byte of a row's type; the flags are the bits above it. */
enum cgm_key_type {
    CGM_KEY_COUNT, CGM_KEY_BYTES, CGM_KEY_HZ, CGM_KEY_CYCLES,
    CGM_KEY_ENUM,   /* names[value], NULL-ended */
    CGM_KEY_MODEL,  /* a section whose keys a model's own parser holds (the DRAM's) */
};
enum cgm_key_flag {
    CGM_KEY_U32 = 1u << 8,         /* the field is unsigned (32 bits), else uint64_t */
    CGM_KEY_POW2 = 1u << 9,        /* the value is a power of two */
    CGM_KEY_POW2_OR_0 = 1u << 10,  /* 0 or a power of two */
};
#define CGM_KEY_TYPE(k) ((enum cgm_key_type)((k)->type & 0xffu))

struct cgm_key {
    const char *section, *name;
    unsigned type;                 /* enum cgm_key_type | enum cgm_key_flag */
    size_t offset;                 /* into the owner's config struct */
    const char *def;               /* default, as text */
    uint64_t min, max;
    const char *const *names;      /* CGM_KEY_ENUM */
    const char *doc;
};

/* "bytes (KiB, MiB, GiB suffixes)", "cycles", ...: --print-config's unit. */
const char *cgm_key_unit(const struct cgm_key *k);
/* A decimal number with the unit suffixes TYPE takes (KiB, GHz, ...).
 * Returns 0 or -1. */
int cgm_key_parse(const char *text, enum cgm_key_type type, uint64_t *out);
/* V as a file would write it: the largest unit that divides it. */
void cgm_key_format(enum cgm_key_type type, uint64_t v, char *buf, size_t len);

/* Row K's field in CFG (the owner's struct). */
uint64_t cgm_key_get(const struct cgm_key *k, const void *cfg);
void cgm_key_put(const struct cgm_key *k, void *cfg, uint64_t v);

/* Sets row K of CFG from TEXT: a name of an enumeration, or a number in
 * range. Messages start with AT (file:line, or --set). Returns 0 or -1. */
int cgm_key_set(const struct cgm_key *k, void *cfg, const char *text, const char *at, char *err, size_t errlen);
/* A numeric row's value from TEXT, range-checked, with set's messages. */
int cgm_key_number(const struct cgm_key *k, const char *text, const char *at, uint64_t *out, char *err,
                   size_t errlen);

/* Every row's default into CFG. Returns 0, or -1 for a default the row
 * refuses (a programming error; ERR names it). */
int cgm_keys_defaults(const struct cgm_key *keys, size_t n, void *cfg, char *err, size_t errlen);
/* Every row's field from FROM to TO (two structs of the owner's type). */
void cgm_keys_copy(const struct cgm_key *keys, size_t n, void *to, const void *from);
/* The rules the rows' flags declare (powers of two), in row order: the
 * first broken one as "SECTION.KEY: V is not a power of two". 0 or -1. */
int cgm_keys_check(const struct cgm_key *keys, size_t n, const void *cfg, char *err, size_t errlen);
/* One row as --print-config writes it: "; doc; unit, min..max; default D"
 * then "name = value". */
void cgm_key_print(const struct cgm_key *k, const void *cfg, FILE *out);

#endif
