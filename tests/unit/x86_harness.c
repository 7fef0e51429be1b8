#include "tests/unit/x86_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracegen/x86/decode.h"
#include "tracegen/x86/fault.h"
#include "tracegen/x86/decode_cache.h"
#include "tracegen/x86/interp.h"

#define HOST_PAGE_BYTES 4096u
#define BLOCK_ADDR 0x401000ull /* where the interpreted block claims to sit */

size_t x86_wrap_code(uint8_t *out, size_t cap, const struct x86_wrap *w, const uint8_t *code,
                     size_t n)
{
    size_t len = w->prologue_len + n + w->epilogue_len;
    assert_true(len <= cap);
    memcpy(out, w->prologue, w->prologue_len);
    memcpy(out + w->prologue_len, code, n);
    memcpy(out + w->prologue_len + n, w->epilogue, w->epilogue_len);
    return len;
}

uint8_t *x86_host_page_open(void)
{
    void *p = mmap(NULL, HOST_PAGE_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void x86_host_page_close(uint8_t *page)
{
    if (page)
        munmap(page, HOST_PAGE_BYTES);
}

void x86_host_run(uint8_t *page, const struct x86_wrap *w, const uint8_t *code, size_t n,
                  void *frame)
{
    size_t len = x86_wrap_code(page, HOST_PAGE_BYTES - 1, w, code, n);
    page[len] = 0xc3; /* ret */
    /* ISO C has no cast from data to function pointer; copying the bits is how POSIX does it */
    void (*fn)(void *);
    void *p = page;
    memcpy(&fn, &p, sizeof fn);
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fcw));
    fn(frame);
    __asm__ volatile("fnclex\n\tldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(fcw));
}

int x86_harness_setup(void **state)
{
    struct x86_harness *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    *state = h;
    h->page = x86_host_page_open();
    h->cpu = malloc(sizeof *h->cpu);
    if (!h->page || !h->cpu)
        return -1;
    return x86_decoder_open(&h->cs);
}

int x86_harness_teardown(void **state)
{
    struct x86_harness *h = *state;
    if (!h)
        return 0;
    x86_host_page_close(h->page);
    if (h->cs)
        cs_close(&h->cs);
    free(h->cpu);
    free(h);
    return 0;
}

struct x86_cpu *x86_harness_cpu(struct x86_harness *h)
{
    memset(h->cpu, 0, sizeof *h->cpu);
    return h->cpu;
}

void x86_run_block(struct x86_harness *h, struct x86_cpu *c, const uint8_t *code, size_t n,
                   unsigned max_insns)
{
    struct x86_block *b = calloc(1, sizeof *b + max_insns * sizeof(struct x86_dinsn));
    assert_non_null(b);
    for (size_t off = 0; off < n;) {
        assert_true(b->ninsn < max_insns);
        unsigned len = x86_decode(h->cs, code + off, n - off, BLOCK_ADDR + off,
                                  &b->insn[b->ninsn]);
        assert_true(len > 0);
        off += len;
        b->ninsn++;
    }
    jmp_buf jb;
    c->fault_jmp = &jb;
    if (setjmp(jb))
        fail_msg("instruction faulted or is not implemented");
    x86_exec_block(c, b);
    c->fault_jmp = NULL;
    free(b);
}

int x86_guest_open(struct x86_guest *g)
{
    g->mem = gmem_create();
    if (!g->mem || gmem_map(g->mem, X86_GUEST_CODE, 4096, GPROT_R | GPROT_X) ||
        gmem_map(g->mem, X86_GUEST_DATA, X86_GUEST_DATA_BYTES, GPROT_R | GPROT_W))
        return -1;
    g->cache = x86_code_cache_create(g->mem);
    return g->cache ? 0 : -1;
}

void x86_guest_close(struct x86_guest *g)
{
    x86_code_cache_destroy(g->cache);
    gmem_destroy(g->mem);
}

int x86_guest_pair_setup(void **state)
{
    struct x86_guest_pair *p = calloc(1, sizeof *p);
    *state = p;
    if (!p || !(p->page = x86_host_page_open()))
        return -1;
    return x86_guest_open(&p->guest);
}

int x86_guest_pair_teardown(void **state)
{
    struct x86_guest_pair *p = *state;
    if (!p)
        return 0;
    x86_host_page_close(p->page);
    if (p->guest.mem)
        x86_guest_close(&p->guest);
    free(p);
    return 0;
}

struct x86_cpu *x86_guest_run(struct x86_guest *g, const struct x86_wrap *w,
                              const uint8_t *code, size_t n, void *frame, size_t size)
{
    uint8_t buf[512];
    size_t k = x86_wrap_code(buf, sizeof buf - 2, w, code, n);
    buf[k++] = 0x0f; /* ud2: ends the run as an illegal instruction */
    buf[k++] = 0x0b;
    assert_true(size <= X86_GUEST_DATA_BYTES - 256);
    /* the same code address holds new code each time: forget old blocks */
    x86_code_cache_flush(g->cache);
    gmem_copy_out(g->mem, X86_GUEST_CODE, buf, k, 1, NULL);
    gmem_copy_out(g->mem, X86_GUEST_DATA, frame, size, 1, NULL);
    struct x86_cpu *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->mem = g->mem;
    c->code = g->cache;
    x86_fpu_reset(c);
    x86_tlb_flush(c);
    c->r[R_RDI] = X86_GUEST_DATA;
    c->r[R_RSP] = X86_GUEST_DATA + X86_GUEST_DATA_BYTES - 64;
    c->rip = X86_GUEST_CODE;
    jmp_buf jb;
    c->fault_jmp = &jb;
    if (setjmp(jb) == 0) {
        for (;;) {
            const struct x86_block *b = x86_block_get(c, c->rip);
            x86_exec_block(c, b);
        }
    }
    if (c->fault_kind != XF_ILLEGAL)
        fail_msg("the emulated code stopped: %s at 0x%llx", x86_fault_name(c->fault_kind),
                 (unsigned long long)c->fault_addr);
    gmem_copy_in(g->mem, frame, X86_GUEST_DATA, size, NULL);
    return c;
}
