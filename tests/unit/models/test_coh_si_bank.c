/* si's L2 bank, message by message (two CUs, one bank, memory below): a
 * store travels as one WriteDiff carrying exactly its masked bytes, with no
 * GetX before it, and its Diff_Ack carries none; the bank does not track
 * the L1s' copies (another CU's store sends them nothing, so they stay
 * stale until their CU invalidates); an SLC load leaves no line in the
 * bank, a plain one does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/coh_mesi.h"
#include "cgm/coh_si.h"
#include "cgm/memsys.h"

#define MAXEV 64

struct ev { bool wake; struct cgm_coh_msg m; int node, what; uint64_t block; };
struct world {
    struct cgm_coh_sys *s;
    struct ev q[MAXEV];
    unsigned head, tail;
    struct cgm_coh_msg sent[MAXEV]; /* every message, in order */
    unsigned nsent, done;
    uint64_t last_value;
};

static void env_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct world *w = ctx;
    assert_true(w->tail < MAXEV && w->nsent < MAXEV);
    w->sent[w->nsent++] = *m;
    w->q[w->tail++] = (struct ev){ .m = *m };
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    struct world *w = ctx;
    assert_true(w->tail < MAXEV);
    w->q[w->tail++] = (struct ev){ .wake = true, .node = node, .block = block, .what = what };
}

static void env_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct world *w = ctx;
    (void)cu, (void)tag, (void)op, (void)block;
    w->done++;
    w->last_value = value;
}

/* Runs every message and wake-up until none is left. */
static void settle(struct world *w)
{
    while (w->head < w->tail) {
        struct ev e = w->q[w->head++];
        if (e.wake)
            cgm_coh_wake(w->s, e.node, e.block, e.what);
        else
            cgm_coh_deliver(w->s, &e.m);
    }
    w->head = w->tail = 0;
}

static void make(struct world *w)
{
    struct cgm_memsys_config mc;
    cgm_memsys_default_config(&mc);
    cgm_memsys_default_gpu(&mc, 2, false, false); /* NC-MC: the banks' parent is memory */
    struct cgm_coh_config c = mc.coh;
    c.cores = mc.cores;
    c.slices = mc.slices;
    c.blocks = 1024;
    c.gpu.protocol = &cgm_coh_si;
    *w = (struct world){ 0 };
    static struct cgm_coh_env env;
    env = (struct cgm_coh_env){ .ctx = w, .send = env_send, .later = env_later, .gpu_done = env_gpu_done };
    char err[256] = "";
    w->s = cgm_coh_create(&c, &env, err, sizeof err);
    if (!w->s)
        fail_msg("%s", err);
}

static unsigned count(const struct world *w, uint8_t type)
{
    unsigned n = 0;
    for (unsigned i = 0; i < w->nsent; i++)
        n += w->sent[i].type == type;
    return n;
}

static int access(struct world *w, int cu, uint8_t op, uint64_t block, uint64_t value, uint64_t mask, uint8_t flags)
{
    return cgm_coh_gpu_access(w->s, cu, &(struct cgm_coh_req){ .block = block, .tag = 1, .op = op, .value = value,
                                                              .mask = mask, .flags = flags });
}

static void test_a_store_sends_its_masked_bytes(void **state)
{
    (void)state;
    struct world w;
    make(&w);
    /* 12 bytes at offset 8: a mask of 12 one-byte granules (64-byte blocks) */
    uint64_t mask = cgm_coh_byte_mask(64, 8, 12);
    assert_int_equal(__builtin_popcountll(mask), 12);
    assert_int_equal(access(&w, 0, CGM_OP_STORE, 5, 41, mask, 0), 0);
    assert_int_equal(w.nsent, 1);
    assert_int_equal(w.sent[0].type, COH_DIFF);
    assert_int_equal(w.sent[0].bytes, 12);
    settle(&w); /* the bank fetches the block from memory, merges, acknowledges */
    assert_int_equal(w.done, 1);
    assert_int_equal(count(&w, COH_GETX), 0);
    assert_int_equal(count(&w, COH_DIFF_ACK), 1);
    assert_int_equal(w.sent[w.nsent - 1].bytes, 0);
    uint64_t data = 0;
    assert_int_equal(cgm_coh_gpu_l2_copy(w.s, 5, &data), MESI_M);
    assert_int_equal(data, 41);
    /* A second store to the block hits the bank's written line: two
     * messages, 4 bytes out. */
    unsigned before = w.nsent;
    assert_int_equal(access(&w, 1, CGM_OP_STORE, 5, 42, cgm_coh_byte_mask(64, 60, 4), 0), 0);
    settle(&w);
    assert_int_equal(w.nsent - before, 2);
    assert_int_equal(w.sent[before].bytes, 4);
    assert_int_equal(w.sent[before + 1].type, COH_DIFF_ACK);
    cgm_coh_destroy(w.s);
}

static void test_copies_stay_until_their_cu_invalidates(void **state)
{
    (void)state;
    struct world w;
    make(&w);
    assert_int_equal(access(&w, 0, CGM_OP_LOAD, 9, 0, 0, 0), 0);
    settle(&w);
    assert_int_equal(w.last_value, 0);
    assert_int_equal(access(&w, 1, CGM_OP_STORE, 9, 77, 0, 0), 0);
    unsigned before = w.nsent;
    settle(&w);
    /* the bank tells CU 0 nothing: only CU 1's Diff_Ack leaves it */
    for (unsigned i = before; i < w.nsent; i++)
        assert_int_not_equal(w.sent[i].dst, cgm_coh_gpu_l1_node(w.s, 0));
    assert_int_equal(access(&w, 0, CGM_OP_LOAD, 9, 0, 0, 0), 1); /* a hit on the stale copy */
    assert_int_equal(w.last_value, 0);
    assert_int_equal(cgm_coh_gpu_invalidate(w.s, 0), 1);
    assert_int_equal(access(&w, 0, CGM_OP_LOAD, 9, 0, 0, 0), 0);
    settle(&w);
    assert_int_equal(w.last_value, 77);
    cgm_coh_destroy(w.s);
}

static void test_slc_leaves_no_line(void **state)
{
    (void)state;
    struct world w;
    make(&w);
    uint64_t data;
    assert_int_equal(access(&w, 0, CGM_OP_LOAD, 3, 0, 0, CGM_COH_SLC), 0);
    settle(&w);
    assert_int_equal(w.done, 1);
    assert_int_equal(cgm_coh_gpu_l2_copy(w.s, 3, &data), 0);
    assert_int_equal(cgm_coh_gpu_l2_stats(w.s, cgm_coh_gpu_bank_of(w.s, 3))->evictions, 1);
    assert_int_equal(access(&w, 0, CGM_OP_LOAD, 4, 0, 0, 0), 0);
    settle(&w);
    assert_int_not_equal(cgm_coh_gpu_l2_copy(w.s, 4, &data), 0);
    cgm_coh_destroy(w.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_store_sends_its_masked_bytes),
        cmocka_unit_test(test_copies_stay_until_their_cu_invalidates),
        cmocka_unit_test(test_slc_leaves_no_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
