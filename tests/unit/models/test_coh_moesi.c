/* MOESI against MESI on a producer and a consumer: core 0 stores to a
 * block, core 1 loads it, N times; then core 0 flushes the block out of
 * the CPU's caches. Messages and wake-ups are delivered one at a time in
 * the order they were sent; the block never leaves a cache before the
 * flush (the caches hold far more than one block).
 *
 * The counts, by hand (the tables of cgm/mesi_rows.def and
 * cgm/moesi_rows.def):
 * - MESI. Round 1: the store misses to the slice, which reads memory
 *   (DRAM read 1) and grants it (PutX). The load is forwarded to core 0,
 *   whose written copy goes to the load (PutS) and, being written, to the
 *   slice with its Fwd_Ack (a sharing write-back: the slice's copy becomes
 *   written). Rounds 2..N: the store upgrades (the slice invalidates core
 *   1's copy), the load is forwarded again and core 0's written copy goes
 *   to the slice again. So N Fwd_Acks carry data (N x 64 bytes to the
 *   slice). The flush takes the clean S copies back (no data: both are
 *   clean, the slice's copy is the written one) and writes the slice's
 *   copy to memory: DRAM writes 1.
 * - MOESI. Round 1 as MESI up to the forward: core 0 keeps the block O and
 *   its Fwd_Ack carries no data. Rounds 2..N: the store upgrades from O
 *   (the slice invalidates core 1), the load is forwarded, O again. No
 *   Fwd_Ack carries data. The flush takes the copies back, the owner's
 *   acknowledgement with the data (64 bytes), and writes it to memory:
 *   DRAM writes 1.
 * So MOESI sends the slice N - 1 fewer blocks (64 bytes each) and one
 * block in all. DRAM writes are equal, 1 each: the inclusive L3 takes
 * MESI's sharing write-backs, so memory is written once, at the flush,
 * under both. The loads return the stores' values either way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh_moesi.h"
#include "cgm/coh_si.h"

#define ROUNDS 10

struct world {
    struct cgm_coh_sys *sys;
    struct item {
        bool wake;
        struct cgm_coh_msg m;
        int node, what;
        uint64_t block;
    } q[512];
    unsigned head, n;
    bool finished;
    uint64_t value;
    uint64_t data_to_slice; /* data bytes of the messages a core sent a slice */
    unsigned fwd_acks_with_data;
};

static void push(struct world *w, const struct item *it)
{
    assert_true(w->n < 512);
    w->q[(w->head + w->n++) % 512] = *it;
}

static void w_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct world *w = ctx;
    if (cgm_coh_node_kind(w->sys, m->src) == CGM_NODE_CORE && cgm_coh_node_kind(w->sys, m->dst) == CGM_NODE_SLICE)
        w->data_to_slice += m->bytes;
    if (m->type == COH_FWD_ACK && m->bytes)
        w->fwd_acks_with_data++;
    push(w, &(struct item){ .m = *m });
}

static void w_later(void *ctx, int node, uint64_t block, int what)
{
    push(ctx, &(struct item){ .wake = true, .node = node, .block = block, .what = what });
}

static void w_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value, unsigned level)
{
    (void)core, (void)tag, (void)op, (void)block, (void)level;
    struct world *w = ctx;
    w->finished = true;
    w->value = value;
}

static void w_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    (void)cu, (void)tag, (void)op, (void)block;
    struct world *w = ctx;
    w->finished = true;
    w->value = value;
}

/* The messages and wake-ups delivered until none is left; the request
 * they serve has finished. */
static uint64_t drain(struct world *w)
{
    for (unsigned guard = 0; w->n; guard++) {
        assert_true(guard < 10000);
        struct item it = w->q[w->head];
        w->head = (w->head + 1) % 512;
        w->n--;
        if (it.wake)
            cgm_coh_wake(w->sys, it.node, it.block, it.what);
        else
            cgm_coh_deliver(w->sys, &it.m);
    }
    assert_true(w->finished);
    return w->value;
}

/* One request of core `core`, run to completion. */
static uint64_t request(struct world *w, int core, uint8_t op, uint64_t block, uint64_t value)
{
    w->finished = false;
    assert_true(cgm_coh_access(w->sys, core, &(struct cgm_coh_req){ .block = block, .op = op, .value = value }) >= 0);
    return drain(w);
}

/* One load of compute unit `cu`, run to completion. */
static uint64_t gpu_load(struct world *w, int cu, uint64_t block)
{
    w->finished = false;
    assert_true(cgm_coh_gpu_access(w->sys, cu, &(struct cgm_coh_req){ .block = block, .op = CGM_OP_LOAD }) >= 0);
    return drain(w);
}

struct counts {
    uint64_t data_to_slice, dram_reads, dram_writes;
    unsigned fwd_acks_with_data;
};

static struct counts producer_consumer(const struct cgm_coh_protocol *p)
{
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    struct cgm_coh_config c = { .cores = 2, .slices = 1, .l1_sets = 4, .l1_ways = 2, .l1i_sets = 1, .l1i_ways = 1,
                                .l2_sets = 8, .l2_ways = 2, .l1_wb_entries = 2, .l3_sets = 8, .l3_ways = 4,
                                .mshr = 4, .coalesce = 4, .wb_entries = 2, .l3_wb_entries = 2, .blocks = 16,
                                .protocol = p };
    struct cgm_coh_env env = { .ctx = w, .send = w_send, .later = w_later, .done = w_done };
    char err[256] = "";
    w->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!w->sys)
        fail_msg("%s", err);
    const uint64_t x = 3;
    for (uint64_t i = 1; i <= ROUNDS; i++) {
        request(w, 0, CGM_OP_STORE, x, 100 + i);
        assert_int_equal(request(w, 1, CGM_OP_LOAD, x, 0), 100 + i);
        uint64_t data = 0;
        unsigned st = cgm_coh_core_copy(w->sys, 0, x, &data);
        assert_int_equal(data, 100 + i);
        /* the producer keeps its written copy as owner under MOESI */
        assert_string_equal(cgm_coh_state_name(p, st), p == &cgm_coh_moesi ? "O" : "S");
    }
    request(w, 0, CGM_OP_FLUSH_CPU, x, 0);
    assert_int_equal(request(w, 1, CGM_OP_LOAD, x, 0), 100 + ROUNDS);
    const struct cgm_coh_slice_stats *ss = cgm_coh_slice_stats(w->sys, 0);
    struct counts k = { w->data_to_slice, ss->mem_reads, ss->mem_writes, w->fwd_acks_with_data };
    printf("%s: %llu data bytes to the slice, %u Fwd_Acks with data, DRAM reads %llu, writes %llu\n", p->name,
           (unsigned long long)k.data_to_slice, k.fwd_acks_with_data, (unsigned long long)k.dram_reads,
           (unsigned long long)k.dram_writes);
    cgm_coh_destroy(w->sys);
    free(w);
    return k;
}

static void test_producer_consumer(void **state)
{
    (void)state;
    struct counts mesi = producer_consumer(&cgm_coh_mesi), moesi = producer_consumer(&cgm_coh_moesi);
    assert_int_equal(mesi.fwd_acks_with_data, ROUNDS);
    assert_int_equal(moesi.fwd_acks_with_data, 0);
    assert_int_equal(mesi.data_to_slice, ROUNDS * 64);
    assert_int_equal(moesi.data_to_slice, 64);
    /* memory: read once (the first store), written once (the flush); read
     * again by the last load after the flush */
    assert_int_equal(mesi.dram_writes, 1);
    assert_int_equal(moesi.dram_writes, 1);
    assert_int_equal(mesi.dram_reads, 2);
    assert_int_equal(moesi.dram_reads, 2);
}

/* A GPU protocol without GPU controllers is refused, naming it. */
static void test_moesi_has_no_gpu_controllers(void **state)
{
    (void)state;
    struct cgm_coh_config c = { .cores = 1, .slices = 1, .l1_sets = 1, .l1_ways = 1, .l1i_sets = 1, .l1i_ways = 1,
                                .l2_sets = 1, .l2_ways = 1, .l1_wb_entries = 1, .l3_sets = 1, .l3_ways = 1,
                                .mshr = 1, .coalesce = 1, .wb_entries = 1, .l3_wb_entries = 1, .blocks = 4,
                                .gpu = { .cus = 1, .banks = 1, .l1_sets = 1, .l1_ways = 1, .l1_mshr = 1,
                                         .l1_coalesce = 1, .l1_wb_entries = 1, .l2_sets = 1, .l2_ways = 1,
                                         .l2_mshr = 1, .l2_coalesce = 1, .l2_wb_entries = 1,
                                         .protocol = &cgm_coh_moesi } };
    struct cgm_coh_env env = { 0 };
    char err[256] = "";
    assert_null(cgm_coh_create(&c, &env, err, sizeof err));
    assert_non_null(strstr(err, "moesi protocol has no controller for the GPU vector L1s"));
    /* the system's moesi leaves the GPU to MESI */
    c.gpu.protocol = NULL;
    c.protocol = &cgm_coh_moesi;
    struct cgm_coh_sys *s = cgm_coh_create(&c, &env, err, sizeof err);
    assert_non_null(s);
    assert_ptr_equal(cgm_coh_protocol_of(s, CGM_NODE_CORE), &cgm_coh_moesi);
    assert_ptr_equal(cgm_coh_protocol_of(s, CGM_NODE_SLICE), &cgm_coh_moesi);
    assert_ptr_equal(cgm_coh_protocol_of(s, CGM_NODE_GPU_L1), &cgm_coh_mesi);
    assert_ptr_equal(cgm_coh_protocol_of(s, CGM_NODE_GPU_L2), &cgm_coh_mesi);
    /* each table its own counters: MESI's GPU rows in mesi's, its CPU rows in moesi's */
    assert_non_null(cgm_coh_row_counts(s, &cgm_coh_mesi));
    assert_non_null(cgm_coh_row_counts(s, &cgm_coh_moesi));
    assert_ptr_not_equal(cgm_coh_row_counts(s, &cgm_coh_mesi), cgm_coh_row_counts(s, &cgm_coh_moesi));
    cgm_coh_destroy(s);
}

/* The cores under MOESI and the GPU's caches under si: both extend MESI
 * and add rows after its own, so the two tables' added rows have the
 * same ids; each is counted in its own table. The cores' producer and
 * consumer take MOESI rows and none of si's; then one compute unit loads
 * a block twice from memory (the GPU not sharing the L3): by si's tables
 * the first load misses in the vector L1 (I: Load -> Miss) and in the
 * bank (I: Load -> Miss); the bank's fill runs it again (IS: the block
 * from below -> the waiters run again), as a hit (Load -> Hit -> PutS),
 * and the vector L1 keeps the block (Pending load: PutS -> V); the second
 * load hits V. No MOESI row moves. */
static void test_moesi_cores_si_gpu_rows(void **state)
{
    (void)state;
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    struct cgm_coh_config c = {
        .cores = 2, .slices = 1, .l1_sets = 4, .l1_ways = 2, .l1i_sets = 1, .l1i_ways = 1, .l2_sets = 8, .l2_ways = 2,
        .l1_wb_entries = 2, .l3_sets = 8, .l3_ways = 4, .mshr = 4, .coalesce = 4, .wb_entries = 2, .l3_wb_entries = 2,
        .blocks = 16, .protocol = &cgm_coh_moesi,
        .gpu = { .cus = 1, .banks = 1, .l1_sets = 2, .l1_ways = 2, .l1_mshr = 2, .l1_coalesce = 2, .l1_wb_entries = 1,
                 .l2_sets = 2, .l2_ways = 2, .l2_mshr = 2, .l2_coalesce = 2, .l2_wb_entries = 1,
                 .protocol = &cgm_coh_si },
    };
    struct cgm_coh_env env = { .ctx = w, .send = w_send, .later = w_later, .done = w_done, .gpu_done = w_gpu_done };
    char err[256] = "";
    w->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!w->sys)
        fail_msg("%s", err);
    assert_ptr_equal(cgm_coh_protocol_of(w->sys, CGM_NODE_CORE), &cgm_coh_moesi);
    assert_ptr_equal(cgm_coh_protocol_of(w->sys, CGM_NODE_GPU_L1), &cgm_coh_si);
    const uint64_t *mo = cgm_coh_row_counts(w->sys, &cgm_coh_moesi), *si = cgm_coh_row_counts(w->sys, &cgm_coh_si);
    assert_non_null(mo);
    assert_non_null(si);

    for (uint64_t i = 1; i <= 3; i++) {
        request(w, 0, CGM_OP_STORE, 3, 100 + i);
        assert_int_equal(request(w, 1, CGM_OP_LOAD, 3, 0), 100 + i);
    }
    uint64_t mo_own = 0;
    for (unsigned r = MESI_NROWS; r < MOESI_NROWS; r++)
        mo_own += mo[r];
    assert_true(mo_own > 0); /* the producer's copy went O and was upgraded from O */
    for (unsigned r = MESI_NROWS; r < SI_NROWS; r++)
        assert_int_equal(si[r], 0);
    uint64_t before[MOESI_NROWS];
    memcpy(before, mo, sizeof before);

    gpu_load(w, 0, 9);
    gpu_load(w, 0, 9);
    for (unsigned r = MESI_NROWS; r < SI_NROWS; r++) {
        unsigned want = r == SI_I_LOAD || r == SIB_I_LOAD || r == SIB_FILL || r == SIB_HIT_LOAD || r == SI_FILL_KEEP ||
                        r == SI_V_LOAD;
        if (si[r] != want)
            fail_msg("si row %s: %llu, expected %u", cgm_coh_si.rows[r].name, (unsigned long long)si[r], want);
    }
    for (unsigned r = 0; r < MOESI_NROWS; r++)
        if (mo[r] != before[r])
            fail_msg("moesi row %s moved from %llu to %llu under the GPU's loads", cgm_coh_moesi.rows[r].name,
                     (unsigned long long)before[r], (unsigned long long)mo[r]);
    cgm_coh_destroy(w->sys);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_producer_consumer),
        cmocka_unit_test(test_moesi_has_no_gpu_controllers),
        cmocka_unit_test(test_moesi_cores_si_gpu_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
