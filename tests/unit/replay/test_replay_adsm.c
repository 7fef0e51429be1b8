/* The ADSM copy protocols' byte counts, from the rules of seed 004 Sec.
 * 6.3.3 applied by hand to programs whose buffers and touches are known:
 * batch moves every buffer both ways, lazy the blocks written before a
 * launch and the blocks read after it, rolling the same bytes as lazy when
 * every block is written once, earlier, and more when blocks are written
 * again after leaving (Fig. 6.8's small rolling sizes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "replay/gpu/adsm.h"

#define KiB 1024ull
#define MiB (1024 * KiB)

struct log {
    bool launched;
    uint64_t early_to_gpu;         /* bytes to the GPU before the launch */
    uint64_t eager_calls;
};

static void record(void *ctx, bool to_gpu, uint64_t addr, uint64_t bytes, bool eager)
{
    (void)addr;
    struct log *l = ctx;
    if (to_gpu && !l->launched)
        l->early_to_gpu += bytes;
    l->eager_calls += eager;
}

enum { A = 0x100000, B = 0x400000 };

/* Two 1 MiB buffers: the CPU writes all of A (a store every 64 bytes),
 * the kernel runs, the CPU reads the first 64 KiB of B. */
static struct rp_adsm_stats run(enum rp_copy_policy p, uint64_t block, uint64_t rolling, struct log *l)
{
    struct rp_adsm a;
    bool oom = false;
    rp_adsm_init(&a, p, block, rolling, 2, record, l);
    assert_true(rp_adsm_alloc(&a, A, MiB));
    assert_true(rp_adsm_alloc(&a, B, MiB));
    for (uint64_t o = 0; o < MiB; o += 64)
        rp_adsm_touch(&a, A + o, true, &oom);
    l->launched = true;
    rp_adsm_launch(&a);
    rp_adsm_done(&a);
    for (uint64_t o = 0; o < 64 * KiB; o += 64)
        rp_adsm_touch(&a, B + o, false, &oom);
    assert_false(oom);
    struct rp_adsm_stats st = a.st;
    rp_adsm_free(&a);
    return st;
}

static void batch_moves_everything(void **state)
{
    (void)state;
    struct log l = { 0 };
    struct rp_adsm_stats s = run(RP_COPY_BATCH, 64 * KiB, 1, &l);
    assert_int_equal(s.bytes_to_gpu, 2 * MiB);
    assert_int_equal(s.bytes_to_cpu, 2 * MiB);
    assert_int_equal(s.transfers_to_gpu, 2);
    assert_int_equal(s.faults, 0);
}

static void lazy_moves_what_was_touched(void **state)
{
    (void)state;
    struct log l = { 0 };
    struct rp_adsm_stats s = run(RP_COPY_LAZY, 64 * KiB, 1, &l);
    /* A's 16 blocks written (16 faults on read-only), one of B read (a fault on invalid) */
    assert_int_equal(s.bytes_to_gpu, MiB);
    assert_int_equal(s.transfers_to_gpu, 16);
    assert_int_equal(s.bytes_to_cpu, 64 * KiB);
    assert_int_equal(s.transfers_to_cpu, 1);
    assert_int_equal(s.faults, 17);
    assert_int_equal(l.early_to_gpu, 0);
    /* batch >= lazy >= the bytes touched */
    struct log lb = { 0 };
    struct rp_adsm_stats b = run(RP_COPY_BATCH, 64 * KiB, 1, &lb);
    uint64_t touched = MiB + 64 * KiB;
    assert_true(b.bytes_to_gpu + b.bytes_to_cpu >= s.bytes_to_gpu + s.bytes_to_cpu);
    assert_true(s.bytes_to_gpu + s.bytes_to_cpu >= touched);
    /* a block larger than the reads rounds them up to one block: 1 MiB back */
    struct rp_adsm_stats big = run(RP_COPY_LAZY, 32 * MiB, 1, &l);
    assert_int_equal(big.bytes_to_cpu, MiB);
    assert_int_equal(big.faults, 2);
}

static void rolling_same_bytes_earlier(void **state)
{
    (void)state;
    struct log l = { 0 };
    struct rp_adsm_stats s = run(RP_COPY_ROLLING, 64 * KiB, 1, &l);
    assert_int_equal(s.bytes_to_gpu, MiB);
    assert_int_equal(s.bytes_to_cpu, 64 * KiB);
    assert_int_equal(s.faults, 17);
    /* two buffers: the rolling size is 1 + 2 x 2 = 5, so 16 - 5 blocks went eagerly, before the launch */
    assert_int_equal(s.eager_transfers, 11);
    assert_int_equal(l.eager_calls, 11);
    assert_int_equal(l.early_to_gpu, 11 * 64 * KiB);
}

/* Three passes over A, each writing every block: a rolling size below the
 * block count sends each block once per pass, one above it once; with
 * none kept dirty every store faults and sends its block. */
static void rolling_rewrites(void **state)
{
    (void)state;
    for (unsigned rolling = 1; rolling <= 20; rolling += 19) {
        struct rp_adsm a;
        bool oom = false;
        rp_adsm_init(&a, RP_COPY_ROLLING, 64 * KiB, rolling, 0, NULL, NULL);
        assert_true(rp_adsm_alloc(&a, A, MiB));
        for (int pass = 0; pass < 3; pass++)
            for (uint64_t o = 0; o < MiB; o += 4 * KiB)
                rp_adsm_touch(&a, A + o, true, &oom);
        rp_adsm_launch(&a);
        assert_int_equal(a.st.bytes_to_gpu, rolling > 16 ? MiB : 3 * MiB);
        assert_int_equal(a.st.faults, rolling > 16 ? 16 : 48);
        rp_adsm_free(&a);
    }
    struct rp_adsm a;
    bool oom = false;
    rp_adsm_init(&a, RP_COPY_ROLLING, 64 * KiB, 0, 0, NULL, NULL);
    assert_true(rp_adsm_alloc(&a, A, MiB));
    for (uint64_t o = 0; o < MiB; o += 4 * KiB)
        rp_adsm_touch(&a, A + o, true, &oom);
    assert_int_equal(a.st.faults, 256);
    assert_int_equal(a.st.eager_bytes, 256 * 64 * KiB);
    rp_adsm_free(&a);
}

static void short_last_block_and_free(void **state)
{
    (void)state;
    struct rp_adsm a;
    bool oom = false;
    rp_adsm_init(&a, RP_COPY_LAZY, 4 * KiB, 0, 0, NULL, NULL);
    assert_true(rp_adsm_alloc(&a, A, 10 * KiB));   /* blocks 4, 4, 2 KiB */
    assert_true(rp_adsm_alloc(&a, B, 4 * KiB));
    assert_true(rp_adsm_touch(&a, A + 9 * KiB, true, &oom));
    assert_false(rp_adsm_touch(&a, A + 9 * KiB + 8, true, &oom)); /* dirty already */
    assert_false(rp_adsm_touch(&a, A, false, &oom));               /* read-only: reads are free */
    assert_false(rp_adsm_touch(&a, 0x10, true, &oom));              /* in no buffer */
    assert_true(rp_adsm_touch(&a, B, true, &oom));
    assert_int_equal(a.ndirty, 2);
    rp_adsm_release(&a, B);
    assert_int_equal(a.ndirty, 1);
    rp_adsm_launch(&a);
    assert_int_equal(a.st.bytes_to_gpu, 2 * KiB);
    /* invalid after the launch: a store brings the block back and makes it dirty */
    assert_true(rp_adsm_touch(&a, A + 4 * KiB, true, &oom));
    assert_int_equal(a.st.bytes_to_cpu, 4 * KiB);
    assert_int_equal(a.ndirty, 1);
    rp_adsm_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batch_moves_everything), cmocka_unit_test(lazy_moves_what_was_touched),
        cmocka_unit_test(rolling_same_bytes_earlier), cmocka_unit_test(rolling_rewrites),
        cmocka_unit_test(short_last_block_and_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
