/* Southern Islands wavefront emulator: runs one kernel dispatch functionally.
 *
 * Work-groups run one after another in dispatch order (x fastest), so a run
 * is deterministic; the wavefronts of a work-group take turns, each running
 * until it reaches s_barrier or s_endpgm.  All memory the kernel reaches --
 * global buffers, the kernarg segment, the dispatch packet, the code object's
 * read-only data and private (scratch) memory -- goes through struct
 * si_memory, which maps guest virtual addresses; LDS belongs to the emulator.
 */
#ifndef CGM_TRACEGEN_SI_EMU_H
#define CGM_TRACEGEN_SI_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/si_isa.h"
#include "tracegen/si/si_program.h"

/* Guest memory as the GPU sees it (the guest's virtual address space). */
struct si_memory {
    void *ctx;
    /* Host pointer to the len bytes at addr (len <= 64, never crossing the
     * mapping), or NULL when any of them is unmapped or, for write, read-only. */
    uint8_t *(*map)(void *ctx, uint64_t addr, size_t len, int write);
};

struct si_launch {
    const struct si_program *program;
    const struct si_kernel *kernel;
    uint64_t code_address;      /* guest address of the code object's vaddr 0 */
    unsigned dims;              /* 1..3 */
    uint32_t grid[3];           /* work-items per dimension */
    uint32_t group[3];          /* work-group size */
    uint64_t kernarg_address;   /* kernarg segment: explicit then hidden arguments */
    uint64_t packet_address;    /* hsa_kernel_dispatch_packet_t, see si_fill_packet */
    uint32_t dynamic_lds;       /* bytes of __local argument space after the fixed LDS */
    uint64_t scratch_address;   /* private memory, si_scratch_bytes() long */
    uint64_t max_instructions;  /* wavefront instructions before giving up; 0: no limit */
    /* Optional: called after the ABI has set a wavefront's registers, to
     * change them (tests, debugging).  sgprs[128] are indexed by operand
     * code (s0..s103, vcc 106/107, m0 124, exec 126/127); vgprs[reg * 64 + lane]. */
    void (*wave_init)(void *ctx, unsigned wave, uint32_t *sgprs, uint32_t *vgprs,
                      unsigned nvgprs);
    void *wave_init_ctx;
};

/* What happened to each executed wavefront instruction, for the recorder. */

struct si_step {
    uint32_t group_id[3];
    unsigned wave;              /* wavefront index within its work-group */
    uint64_t pc;                /* guest address */
    const struct cgm_si_inst *inst;
    uint64_t exec;              /* EXEC when the instruction issued */
    /* Memory instructions: per active lane the address and size; scalar
     * loads use lane 0.  LDS addresses are offsets into the group's LDS. */
    enum cgm_si_access access;  /* CGM_SI_NONE when no memory was accessed */
    int lds;                    /* the addresses are LDS offsets */
    unsigned access_size;       /* bytes per lane */
    const uint64_t *addr;       /* [64], valid for active lanes */
};

struct si_observer {
    void *ctx;
    void (*step)(void *ctx, const struct si_step *s);
    void (*group_begin)(void *ctx, const uint32_t group_id[3], unsigned waves);
    void (*group_end)(void *ctx, const uint32_t group_id[3]);
};

struct si_run_stats {
    uint64_t wave_instructions;  /* executed wavefront instructions */
    uint64_t lane_operations;    /* sum over instructions of active lanes */
    uint64_t groups, waves;
};

/* Runs the dispatch.  Returns 0, or -1 with a message in err naming the
 * kernel, work-item, pc, instruction and the fault (unmapped address, LDS
 * out of range, unimplemented instruction, ...).  observer may be NULL. */
int si_run(const struct si_launch *l, const struct si_memory *mem,
           const struct si_observer *observer, struct si_run_stats *stats,
           char *err, size_t errlen);

/* Bytes of private memory the dispatch needs (one work-group at a time). */
uint64_t si_scratch_bytes(const struct si_launch *l);

/* Writes the 64-byte AMD HSA kernel dispatch packet for the launch. */
void si_fill_packet(const struct si_launch *l, uint8_t packet[64]);

/* Lays out the kernarg segment: the explicit argument bytes, then the hidden
 * arguments the metadata asks for (global offsets 0, the rest zero).  Returns
 * the segment size, or 0 if out is too small or the explicit bytes run into
 * the first hidden argument. */
size_t si_build_kernarg(const struct si_kernel *k, const void *args, size_t args_bytes,
                        uint8_t *out, size_t out_size);

#endif
