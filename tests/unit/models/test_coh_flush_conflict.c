/* The L2's flush-conflict rows of Table 3.3, driven step by step: a core
 * holds block A exclusively in its data cache and L2; a miss to block B
 * evicts A from the one-way L2, which must wait for the data cache's flush
 * acknowledgement; a load and a store to A in that window are NACKed back
 * to the data cache (I_WB_Flush_Conflict) and complete once retried, the
 * store's value reaching memory and a later load. Messages and wake-ups
 * are delivered in FIFO order by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh_mesi.h"

struct item {
    bool wake;
    struct cgm_coh_msg m;
    int node, what;
    uint64_t block;
};

struct world {
    struct cgm_coh_sys *sys;
    struct item q[256];
    unsigned head, n;
    unsigned done;
    uint64_t value[8]; /* by tag */
    bool finished[8];
};

static void push(struct world *w, const struct item *it)
{
    assert_true(w->n < 256);
    w->q[(w->head + w->n++) % 256] = *it;
}

static void w_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct item it = { .wake = false, .m = *m };
    push(ctx, &it);
}

static void w_later(void *ctx, int node, uint64_t block, int what)
{
    struct item it = { .wake = true, .node = node, .block = block, .what = what };
    push(ctx, &it);
}

static void w_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value,
                   unsigned level)
{
    (void)core;
    (void)op;
    (void)block;
    (void)level;
    struct world *w = ctx;
    assert_true(tag < 8 && !w->finished[tag]);
    w->finished[tag] = true;
    w->value[tag] = value;
    w->done++;
}

static void drain(struct world *w)
{
    for (unsigned guard = 0; w->n; guard++) {
        assert_true(guard < 10000);
        struct item it = w->q[w->head];
        w->head = (w->head + 1) % 256;
        w->n--;
        if (it.wake)
            cgm_coh_wake(w->sys, it.node, it.block, it.what);
        else
            cgm_coh_deliver(w->sys, &it.m);
    }
}

static void test_flush_conflict_rows(void **state)
{
    (void)state;
    struct world *w = calloc(1, sizeof *w);
    struct cgm_coh_config c = { .cores = 1, .slices = 1, .l1_sets = 1, .l1_ways = 2, .l1i_sets = 1,
                                .l1i_ways = 1, .l2_sets = 1, .l2_ways = 1, .l1_wb_entries = 1,
                                .l3_sets = 4, .l3_ways = 4, .mshr = 4, .coalesce = 4, .wb_entries = 2,
                                .l3_wb_entries = 2, .blocks = 64 };
    struct cgm_coh_env env = { .ctx = w, .send = w_send, .later = w_later, .done = w_done };
    char err[256] = "";
    w->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!w->sys)
        fail_msg("%s", err);
    const uint64_t a = 5, b = 9;

    /* A comes in exclusive (the only core) and is held by the data cache. */
    assert_int_equal(cgm_coh_access(w->sys, 0, &(struct cgm_coh_req){ .block = a, .tag = 0, .op = CGM_OP_LOAD }), 0);
    drain(w);
    assert_true(w->finished[0]);
    assert_int_equal(cgm_coh_core_copy(w->sys, 0, a, &(uint64_t){ 0 }), MESI_E);

    /* B's miss evicts A from the L2; before the flush is acknowledged a
     * load and a store to A meet the conflict. */
    assert_int_equal(cgm_coh_access(w->sys, 0, &(struct cgm_coh_req){ .block = b, .tag = 1, .op = CGM_OP_LOAD }), 0);
    const uint64_t *rows = cgm_coh_row_counts(w->sys, &cgm_coh_mesi);
    assert_int_equal(rows[R33_WBFC_LOAD], 0);
    assert_int_equal(cgm_coh_access(w->sys, 0, &(struct cgm_coh_req){ .block = a, .tag = 2, .op = CGM_OP_LOAD }), 0);
    assert_int_equal(rows[R33_WBFC_LOAD], 1);
    assert_int_equal(cgm_coh_access(w->sys, 0, &(struct cgm_coh_req){ .block = a, .tag = 3, .value = 77, .op = CGM_OP_STORE }), 0);
    assert_int_equal(rows[R33_WBFC_STORE], 1);
    assert_int_equal(cgm_coh_core_stats(w->sys, 0)->l1_nacks, 2);
    assert_false(w->finished[2] || w->finished[3]);

    drain(w);
    assert_int_equal(w->done, 4);
    assert_int_equal(w->value[2], 0); /* memory's initial value */
    assert_int_equal(w->value[3], 77);
    assert_int_equal(cgm_coh_access(w->sys, 0, &(struct cgm_coh_req){ .block = a, .tag = 4, .op = CGM_OP_LOAD }) >= 0, 1);
    drain(w);
    assert_true(w->finished[4]);
    assert_int_equal(w->value[4], 77);
    /* A left the L2 once, then B when A came back: both unwritten, so
     * two clean notices and no write-back (the store is still cached). */
    assert_int_equal(cgm_coh_node_msgs(w->sys, 0)->sent[COH_EVICT], 2);
    assert_int_equal(cgm_coh_node_msgs(w->sys, 0)->sent[COH_WB], 0);
    cgm_coh_destroy(w->sys);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flush_conflict_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
