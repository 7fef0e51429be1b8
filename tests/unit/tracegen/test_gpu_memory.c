/* The GPU's view of guest memory (tracegen/gpu/gpu_memory.c): fresh GPU
 * mappings are zeroed, page aligned and below the mmap area; the emulator's
 * map() gives host pointers only for mapped bytes with the needed permission,
 * across a page boundary only inside one mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/si/si_emu.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"

static struct x86_process *new_process(void)
{
    struct x86_options opt;
    memset(&opt, 0, sizeof opt);
    opt.quiet = 1;
    char perr[256];
    struct x86_process *p = x86_process_create(&opt, perr, sizeof perr);
    assert_non_null(p);
    p->brk_start = p->brk_cur = 0x10000000ull;
    p->mmap_top = 0x7f0000000000ull;
    return p;
}

static void test_guest_map(void **state)
{
    (void)state;
    struct x86_process *p = new_process();
    uint64_t a = gpu_guest_map(p, 5000, GPROT_R | GPROT_W);
    assert_int_equal(a % GPAGE_SIZE, 0);
    assert_true(a + 2 * GPAGE_SIZE <= 0x7f0000000000ull);   /* rounded up to 2 pages */
    assert_true(gmem_is_mapped(p->mem, a, 2 * GPAGE_SIZE));
    uint64_t b = gpu_guest_map(p, 1, GPROT_R);
    assert_true(b + GPAGE_SIZE <= a);                        /* no overlap, grows down */
    uint8_t buf[8192];
    assert_int_equal(gmem_copy_in(p->mem, buf, a, sizeof buf, NULL), 0);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
    /* refused: zero bytes, and anything that would reach within 1 GiB of brk */
    assert_int_equal(gpu_guest_map(p, 0, GPROT_R), 0);
    assert_int_equal(gpu_guest_map(p, b - p->brk_cur, GPROT_R), 0);
    x86_process_destroy(p);
}

static void test_emulator_view(void **state)
{
    (void)state;
    struct x86_process *p = new_process();
    struct si_memory m = gpu_si_memory(p);
    uint64_t rw = gpu_guest_map(p, 2 * GPAGE_SIZE, GPROT_R | GPROT_W);
    uint64_t ro = gpu_guest_map(p, GPAGE_SIZE, GPROT_R);     /* right below rw */
    assert_int_equal(ro + GPAGE_SIZE, rw);
    /* a write through map() is what the guest reads back */
    uint8_t *h = m.map(m.ctx, rw + 100, 4, 1);
    assert_non_null(h);
    memcpy(h, "abcd", 4);
    char back[4];
    assert_int_equal(gmem_copy_in(p->mem, back, rw + 100, 4, NULL), 0);
    assert_memory_equal(back, "abcd", 4);
    /* inside one mapping an access may straddle its pages */
    h = m.map(m.ctx, rw + GPAGE_SIZE - 8, 16, 1);
    assert_non_null(h);
    memset(h, 7, 16);
    assert_int_equal(gmem_copy_in(p->mem, back, rw + GPAGE_SIZE + 4, 4, NULL), 0);
    assert_int_equal(back[3], 7);
    /* read-only: readable, not writable */
    assert_non_null(m.map(m.ctx, ro, 64, 0));
    assert_null(m.map(m.ctx, ro, 4, 1));
    /* across two mappings: refused (their host pages need not be adjacent) */
    uint8_t *edge = m.map(m.ctx, ro + GPAGE_SIZE - 4, 8, 0);
    assert_true(edge == NULL || edge + 4 == gmem_page(p->mem, rw, NULL));
    /* unmapped, past the end, and non-canonical addresses */
    assert_null(m.map(m.ctx, rw + 2 * GPAGE_SIZE - 4, 8, 0));   /* nothing above rw */
    assert_null(m.map(m.ctx, 0x1000, 4, 0));
    assert_null(m.map(m.ctx, 1ull << 60, 4, 0));
    x86_process_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guest_map),
        cmocka_unit_test(test_emulator_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
