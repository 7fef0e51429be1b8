#include "tests/unit/x86_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracegen/x86/decode.h"
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
    fn(frame);
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
