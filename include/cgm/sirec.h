/* Southern Islands records: each kernel's static instruction table and the
 * dynamic records of a work-group's stream.
 *
 * Static table: section "si.static.P", one per loaded program (P is the GPU
 * driver's program handle; a work-group stream's name is the section its
 * records decode against), one entry per instruction in address order: offset from the
 * code object's vaddr 0 (delta varint), size, unit, access kind, bytes per
 * lane, flags, the s_waitcnt counts for waitcnt instructions, and the
 * instruction's bytes (so a consumer can disassemble it).
 *
 * Dynamic records (one stream per work-group):
 *   0x80 WAVE  a run of one wavefront's instructions in program order:
 *              wave index, instruction count, then per instruction a varint
 *              header followed by what it announces:
 *                bit 0     jump: zigzag delta of (offset - expected) / 4
 *                          (expected = previous offset + previous size)
 *                bits 1-2  exec: 0 same as this wave's previous instruction,
 *                          1 all 64 lanes, 2 an 8-byte mask follows, 3 none
 *                bits 3-4  addresses (memory instructions, active lanes):
 *                          0 none, 1 one address (scalar loads), 2 base and
 *                          stride (lane l at base + l * stride), 3 base and
 *                          per-active-lane zigzag deltas from the lane before
 *              Bases are zigzag deltas from the last base of the same static
 *              instruction in this stream (the decoder keeps the same slots).
 *   0x81 BARRIER  the wavefront waits at s_barrier: wave index
 *   0x82 END      the wavefront executed s_endpgm: wave index
 */
#ifndef CGM_SIREC_H
#define CGM_SIREC_H

#include <stddef.h>
#include <stdint.h>

#define CGM_SI_REC_WAVE     0x80
#define CGM_SI_REC_BARRIER  0x81
#define CGM_SI_REC_END      0x82
#define CGM_SI_STATIC_PREFIX "si.static."
#define CGM_SI_KERNEL_PREFIX "si.kernel."
#define CGM_SI_RUN_MAX      256u     /* instructions per WAVE record */
#define CGM_SI_WAVES_MAX    16u      /* wavefronts per work-group */
#define CGM_SI_LANES        64u
/* type, wave, count, then per instruction: header, jump, exec, base, stride
 * or 64 deltas. */
#define CGM_SI_RECORD_BYTES_MAX (1 + 2 * 10 + CGM_SI_RUN_MAX * (3 * 10 + 8 + 65 * 10))
#define CGM_SI_STATIC_BYTES_MAX (10 + 8 + 12)

enum cgm_si_unit {
    CGM_SI_SALU = 0,   /* scalar ALU */
    CGM_SI_VALU,       /* vector ALU */
    CGM_SI_SMEM,       /* scalar memory (SMRD) */
    CGM_SI_VMEM,       /* vector memory (MUBUF, MTBUF, MIMG) */
    CGM_SI_LDS,        /* DS */
    CGM_SI_BRANCH,     /* s_branch, s_cbranch_*, s_setpc/swappc */
    CGM_SI_BARRIER,
    CGM_SI_WAITCNT,
    CGM_SI_END,        /* s_endpgm */
    CGM_SI_OTHER,      /* nop, export, interpolation, messages */
    CGM_SI_UNIT_COUNT
};

enum cgm_si_access { CGM_SI_NONE = 0, CGM_SI_LOAD, CGM_SI_STORE, CGM_SI_ATOMIC };

enum { CGM_SI_GLC = 1, CGM_SI_SLC = 2, CGM_SI_GDS = 4 };

const char *cgm_si_unit_name(unsigned unit);

struct cgm_si_static {
    uint32_t offset;        /* from the code object's vaddr 0 */
    uint8_t size;           /* 4, 8 or 12 */
    uint8_t unit;           /* enum cgm_si_unit */
    uint8_t access;         /* enum cgm_si_access */
    uint8_t access_size;    /* bytes per lane */
    uint8_t flags;          /* CGM_SI_GLC | CGM_SI_SLC | CGM_SI_GDS */
    uint8_t vmcnt, expcnt, lgkmcnt;  /* s_waitcnt only */
    uint8_t bytes[12];
};

size_t cgm_si_static_encode(uint8_t *out, uint32_t *prev, const struct cgm_si_static *s);
int cgm_si_static_decode(const uint8_t **p, const uint8_t *end, uint32_t *prev,
                         struct cgm_si_static *s);

/* What a kernel needs of a compute unit, for the dispatcher: section
 * "si.kernel.K" (K = the driver's kernel handle, the kernel field of its
 * gpu_launch events), written when the guest looks the kernel up, as text
 * lines "key=value". Traces recorded before it existed have no such
 * section. */
struct cgm_si_kernel_info {
    uint32_t kernel, program;   /* handles */
    char name[128];
    uint32_t entry;             /* first instruction, from the code object's vaddr 0 */
    uint32_t vgprs, sgprs;      /* allocated per work-item / per wavefront */
    uint32_t lds_bytes;         /* fixed LDS per work-group (launches may add dynamic LDS) */
    uint32_t private_bytes;     /* private (scratch) memory per work-item */
};

#define CGM_SI_KERNEL_TEXT_MAX 512
/* Writes K's text (at most CGM_SI_KERNEL_TEXT_MAX bytes); returns its length. */
size_t cgm_si_kernel_info_encode(char *out, const struct cgm_si_kernel_info *k);
/* Reads a section's text; keys it does not know are skipped. Returns 0, or
 * -1 when a line is malformed or a number out of range. */
int cgm_si_kernel_info_decode(const uint8_t *text, size_t len, struct cgm_si_kernel_info *k);

/* One executed wavefront instruction. */
struct cgm_si_dyn {
    uint32_t offset;        /* static instruction */
    uint64_t exec;
    uint64_t addr[CGM_SI_LANES];   /* active lanes, memory instructions only */
};

/* Codec state of one stream, the same on both sides.  The static table
 * (sorted by offset) tells which instructions are memory instructions and
 * their sizes; slots hold the last base address per static instruction. */
struct cgm_si_codec {
    const struct cgm_si_static *table;
    size_t n;
    uint64_t *slot;                      /* n entries */
    int32_t *index;                      /* entry by (offset - table[0].offset) / 4, or NULL */
    uint32_t index_words;
    int owns_index;                      /* 0: shared with the codec it was made like */
    uint32_t next[CGM_SI_WAVES_MAX];     /* expected offset per wave */
    uint64_t exec[CGM_SI_WAVES_MAX];
};

/* Allocates the slots; returns 0 or -1 (out of memory). */
int cgm_si_codec_init(struct cgm_si_codec *c, const struct cgm_si_static *table, size_t n);
/* A fresh codec over PROTO's table and index (which must outlive it), with
 * slots of its own: several readers of one program's streams. Returns 0 or
 * -1 (out of memory). */
int cgm_si_codec_init_like(struct cgm_si_codec *c, const struct cgm_si_codec *proto);
void cgm_si_codec_free(struct cgm_si_codec *c);
/* Index of the static entry at OFFSET, or -1. */
long cgm_si_static_find(const struct cgm_si_codec *c, uint32_t offset);

/* Encodes a WAVE record of N (1..CGM_SI_RUN_MAX) instructions of wave W into
 * OUT (CGM_SI_RECORD_BYTES_MAX bytes).  Returns the length, 0 if an offset
 * is not in the table or W is out of range. */
size_t cgm_si_wave_encode(struct cgm_si_codec *c, uint8_t *out, unsigned wave,
                          const struct cgm_si_dyn *insts, unsigned n);
/* Encodes a BARRIER or END record (3 bytes at most). */
size_t cgm_si_mark_encode(uint8_t *out, uint8_t type, unsigned wave);

/* Decoding a record one instruction at a time (a consumer that keeps one
 * wavefront's instructions in flight needs no room for a whole run). */
struct cgm_si_run {
    const uint8_t *p, *end;
    unsigned wave;
    unsigned left;                       /* instructions not yet decoded */
};
/* Opens any SI record: its type and wave; for WAVE records RUN then yields
 * its instructions. Returns 0, or -1 when the record is malformed. */
int cgm_si_run_open(const uint8_t *rec, size_t len, uint8_t *type, struct cgm_si_run *run);
/* The next instruction of RUN into D (addresses of the active lanes for
 * memory instructions, addr[0] for scalar loads). Returns its static
 * entry's index, or -1 when the record is malformed. */
long cgm_si_run_next(struct cgm_si_codec *c, struct cgm_si_run *run, struct cgm_si_dyn *d);
/* Decodes the rest of RUN without keeping it (the codec's state moves on,
 * as later records of the stream need). Returns 0 or -1. */
int cgm_si_run_skip(struct cgm_si_codec *c, struct cgm_si_run *run);

/* Decodes any SI record.  For WAVE records INSTS must hold CGM_SI_RUN_MAX
 * entries; *N gets the count.  Returns 0, or -1 when the record is malformed. */
int cgm_si_record_decode(struct cgm_si_codec *c, const uint8_t *rec, size_t len,
                         uint8_t *type, unsigned *wave, struct cgm_si_dyn *insts,
                         unsigned *n);

#endif
