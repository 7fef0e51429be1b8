/* Static-table details of one instruction, derived from its bytes with
 * capstone: micro-op breakdown, memory operand size, registers read and
 * written (flags included). */
#ifndef TRACEGEN_X86_STATIC_INFO_H
#define TRACEGEN_X86_STATIC_INFO_H

#include <capstone/capstone.h>

#include "cgm/x86rec.h"

/* 1 for the AVX2 gathers (capstone id CSID): one load per element the
 * mask selects, and a result that needs them all. */
int x86_is_gather(unsigned csid);

/* Fills uops, loads, stores, mem_size, src and dst of S from S->bytes,
 * S->addr and S->op. Leaves them zero when the bytes do not decode. */
void x86_static_fill(csh h, struct cgm_x86_static *s);

#endif
