/* Southern Islands code objects: an AMDHSA ELF made by clang/ld.lld for
 * gfx600.  The loader maps the loadable segments into one image addressed by
 * the ELF's virtual addresses, finds every kernel's descriptor (NAME.kd) and
 * reads the kernel metadata note (MessagePack) for the argument layout. */
#ifndef CGM_TRACEGEN_SI_PROGRAM_H
#define CGM_TRACEGEN_SI_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "cgm/si_isa.h"

enum { SI_NAME_MAX = 128, SI_KIND_MAX = 40 };

/* One kernel argument from the metadata, hidden arguments included. */
struct si_kernel_arg {
    char name[SI_NAME_MAX];        /* "" when the metadata has none */
    char type_name[SI_NAME_MAX];
    char value_kind[SI_KIND_MAX];  /* "global_buffer", "by_value", "hidden_global_offset_x", ... */
    char address_space[16];        /* "global", "local", ... or "" */
    uint32_t offset, size;
    int is_hidden;                 /* value_kind starts with "hidden_" */
};

/* The AMDHSA kernel descriptor (64 bytes at NAME.kd) and what it implies. */
struct si_kernel_descriptor {
    uint32_t group_segment_fixed_size;
    uint32_t private_segment_fixed_size;
    uint32_t kernarg_size;
    int64_t  entry_byte_offset;    /* from the descriptor's address */
    uint32_t rsrc1, rsrc2;
    uint16_t properties;           /* kernel_code_properties */
};

/* Fields of compute_pgm_rsrc1/2 and kernel_code_properties, decoded. */
struct si_kernel_setup {
    unsigned vgprs, sgprs;            /* allocated, from the granulated counts */
    unsigned float_round_32, float_round_64, float_denorm_32, float_denorm_64;
    int ieee_mode, dx10_clamp;
    int scratch_en;                   /* private segment wave offset SGPR present */
    unsigned user_sgpr_count;
    int workgroup_id[3], workgroup_info;
    unsigned workitem_id_dims;        /* VGPRs v0..: 0 = x only, 1 = x,y, 2 = x,y,z */
    int private_segment_buffer, dispatch_ptr, queue_ptr, kernarg_segment_ptr,
        dispatch_id, flat_scratch_init, private_segment_size;
};

struct si_kernel {
    char name[SI_NAME_MAX];
    uint64_t kd_address;              /* virtual address of NAME.kd */
    uint64_t entry;                   /* virtual address of the first instruction */
    struct si_kernel_descriptor kd;
    struct si_kernel_setup setup;
    /* from the metadata note */
    struct si_kernel_arg *args;
    size_t nargs;
    uint32_t kernarg_segment_size, kernarg_segment_align;
    uint32_t sgpr_count, vgpr_count, wavefront_size;
    uint32_t max_flat_workgroup_size;
};

/* An 8-byte slot of the image that must hold the image's guest address
 * plus addend (R_AMDGPU_RELATIVE64). */
struct si_reloc {
    uint64_t offset;
    int64_t addend;
};

struct si_program {
    char path[512];
    uint8_t *image;                   /* loadable segments at their virtual addresses */
    uint64_t image_size;
    uint64_t text_start, text_end;    /* the executable segments' span */
    struct cgm_si_inst *insts;            /* decoded at load, by (vaddr - text_start) / 4;
                                         size 0 where no instruction starts */
    struct si_kernel *kernels;
    size_t nkernels;
    struct si_reloc *relocs;
    size_t nrelocs;
};

/* Loads a code object from a file or from memory.  On failure returns -1
 * and writes a message naming the file and the problem into err. */
int si_program_load(const char *path, struct si_program *out, char *err, size_t errlen);
int si_program_load_memory(const void *data, size_t size, const char *name,
                           struct si_program *out, char *err, size_t errlen);
void si_program_free(struct si_program *p);

/* Applies the relocations to the image for its placement at guest address
 * ADDRESS (its vaddr 0); the image is then what guest memory must hold. */
void si_program_relocate(struct si_program *p, uint64_t address);

const struct si_kernel *si_program_kernel(const struct si_program *p, const char *name);

/* Decodes the descriptor's register and mode fields. */
struct si_kernel_setup si_kernel_setup_from(const struct si_kernel_descriptor *kd);

/* Reads the NT_AMDGPU_METADATA MessagePack document into the kernels that
 * already carry their names (internal to the loader, exposed for tests). */
int si_metadata_parse(const void *data, size_t size, struct si_program *p,
                      char *err, size_t errlen);

#endif
