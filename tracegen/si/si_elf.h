/* Internal to the code-object loader: the ELF-level helpers si_program.c
 * shares with the checks of what the device cannot run (si_refuse.c). */
#ifndef CGM_TRACEGEN_SI_ELF_H
#define CGM_TRACEGEN_SI_ELF_H

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "tracegen/si/si_program.h"

/* Writes "NAME: " and the formatted message into err (errlen 0: nothing)
 * and returns -1: every loader error names the code object. */
int si_elf_fail(const char *name, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Calls FN with the descriptor of every NT_AMDGPU_METADATA note, in file
 * order, and where it lies in the file.  Returns how many there were, or -1
 * as soon as FN returns non-zero. */
int si_elf_metadata_notes(Elf *elf, int (*fn)(void *ctx, const void *desc, size_t len,
                                              uint64_t file_offset),
                          void *ctx);

/* The "amdhsa.target" string of a metadata note ("amdgcn-amd-amdhsa--gfx900")
 * into out; 0, or -1 when the note has none. */
int si_metadata_target(const void *data, size_t size, char *out, size_t cap);

/* Each returns 0 when the code object passes, else -1 with a message
 * "NAME: ..." in err naming what the device lacks and what to do. */

/* Another GPU than gfx600/601/602 (the ELF header's EF_AMDGPU_MACH). */
int si_refuse_target(Elf *elf, const GElf_Ehdr *eh, const char *name, char *err, size_t errlen);
/* Undefined symbols (printf's __printf_alloc, functions no library
 * defines) and dynamic relocations: the loader links nothing, so calls
 * through them would jump to address 0. */
int si_refuse_unresolved(Elf *elf, const char *name, char *err, size_t errlen);
/* What an undefined symbol means to the user (printf for __printf_alloc). */
const char *si_undefined_meaning(const char *sym);
/* Reads the dynamic relocations into p->relocs: R_AMDGPU_RELATIVE64 (an
 * address inside the image, from a program-scope pointer initialised with
 * an address) is applied when the image is placed; any other is refused. */
int si_read_relocations(Elf *elf, const char *name, struct si_program *p, char *err,
                        size_t errlen);
/* Kernels whose arguments need what the device has not: images, samplers,
 * pipes, device-side queues, a printf buffer. */
int si_refuse_arguments(const struct si_program *p, const char *name, char *err, size_t errlen);

#endif
