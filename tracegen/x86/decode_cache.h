/* Decoded basic blocks, cached by start address so every static
 * instruction is decoded once. Writes to a page that holds decoded code
 * throw the whole cache away (self-modifying code is rare in the guests
 * we run; correctness matters more than speed there). */
#ifndef TRACEGEN_X86_DECODE_CACHE_H
#define TRACEGEN_X86_DECODE_CACHE_H

#include <capstone/capstone.h>

#include "tracegen/x86/cpu.h"

#define X86_BLOCK_MAX_INSNS 64

struct x86_block {
    uint64_t start;
    uint64_t end;              /* address after the last instruction */
    uint32_t ninsn;
    uint32_t id;               /* dense number, for the recorder */
    struct x86_block *hash_next;
    struct x86_dinsn insn[];
};

struct x86_code_cache;

struct x86_code_cache *x86_code_cache_create(struct gmem *m);
void x86_code_cache_destroy(struct x86_code_cache *cc);

/* The block starting at RIP, decoded now if needed. Faults (XF_EXEC)
 * through C when RIP is not executable. */
struct x86_block *x86_block_get(struct x86_cpu *c, uint64_t rip);

/* Forgets every decoded block (called on a write to a code page or when
 * code pages are unmapped or reprotected). Blocks are freed at the next
 * x86_block_get so the running block stays valid until it ends. */
void x86_code_invalidate(struct x86_cpu *c, uint64_t addr);
void x86_code_cache_flush(struct x86_code_cache *cc);
/* Flushes when code was decoded from a page of [ADDR, ADDR+LEN). */
void x86_code_cache_forget(struct x86_code_cache *cc, uint64_t addr, uint64_t len);

csh x86_code_cache_capstone(struct x86_code_cache *cc);

/* FN (NULL: none) is called with each block just after it was decoded. */
void x86_code_cache_on_decode(struct x86_code_cache *cc,
                              void (*fn)(void *ctx, const struct x86_block *b), void *ctx);

/* Statistics. */
uint64_t x86_code_cache_decoded(const struct x86_code_cache *cc);
/* Host memory the cached blocks take. */
uint64_t x86_code_cache_bytes(const struct x86_code_cache *cc);

#endif
