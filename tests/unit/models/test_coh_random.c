/* Random coherence tester in the manner of gem5 Ruby's: cores issue loads,
 * stores and fetches to a few dozen blocks; every message and wake-up is
 * delayed by a random amount (keeping each channel FIFO); stores write
 * unique values. At every step the tester checks that a block has one
 * writer or many readers and that every readable copy holds the last value
 * stored; every load must return that value; every request must complete
 * (a watchdog reports the state of every controller for a stuck block).
 * Small configurations force evictions, NACKs and write-back conflicts.
 * Every row of Tables 3.1-3.5 must be modelled and reached; under MOESI
 * every row of MESI's tables and its own of the cores and slices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh_moesi.h"
#include "tests/unit/coh_events.h"


struct outstanding {
    uint64_t issued;
    uint64_t block;
    bool used;
};

#define MAXN 80
#define K 4 /* requests in flight per core */

struct tester {
    struct cgm_coh_sys *sys;
    unsigned cores, nodes;
    uint64_t ncode, ndata;
    struct coh_events q;
    uint64_t now, rng;
    uint64_t chan_last[MAXN][MAXN];
    uint64_t *golden;
    uint64_t next_value;
    struct outstanding out[64][K];
    unsigned inflight[64];
    uint64_t issued, completed, target;
    unsigned max_delay, mem_delay;
    bool stop_issue;
    int failed;
};

static uint64_t rnd(struct tester *t) { return coh_rnd(&t->rng); }

static void push(struct tester *t, struct coh_event e) { coh_events_push(&t->q, e); }

static void env_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct tester *t = ctx;
    /* a message of the sender's protocol */
    const struct cgm_coh_protocol *p = cgm_coh_protocol_of(t->sys, cgm_coh_node_kind(t->sys, m->src));
    if (!((p->messages >> m->type) & 1)) {
        fprintf(stderr, "%s sent %s, not one of its messages\n", p->name, cgm_coh_msg_names[m->type]);
        t->failed = 1;
    }
    uint64_t at = coh_msg_arrival(&t->rng, t->now, t->max_delay, &t->chan_last[m->src][m->dst]);
    push(t, (struct coh_event){ .time = at, .kind = 0, .m = *m });
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    struct tester *t = ctx;
    uint64_t d = coh_wake_delay(&t->rng, what, t->mem_delay);
    push(t, (struct coh_event){ .time = t->now + d, .kind = 1, .node = node, .block = block, .what = what });
}

static void check_block(struct tester *t, uint64_t block)
{
    const struct cgm_coh_protocol *p = cgm_coh_protocol_of(t->sys, CGM_NODE_CORE);
    struct cgm_coh_census census = { 0 };
    for (unsigned c = 0; c < t->cores; c++) {
        uint64_t data = 0;
        unsigned st = cgm_coh_core_copy(t->sys, (int)c, block, &data);
        if (p->permission[st] == CGM_COH_NO_COPY)
            continue;
        if (p->permission[st] == CGM_COH_WRITE)
            census.writers++;
        else
            census.readers++;
        if (data != t->golden[block]) {
            fprintf(stderr, "time %llu: core %u holds block %llu in %s with value %llu, last store %llu\n",
                    (unsigned long long)t->now, c, (unsigned long long)block, cgm_coh_state_name(p, st),
                    (unsigned long long)data, (unsigned long long)t->golden[block]);
            cgm_coh_dump_block(t->sys, block, stderr);
            t->failed = 1;
        }
    }
    const char *wrong = cgm_coh_check_census(p, &census);
    if (wrong) {
        fprintf(stderr, "time %llu: block %llu has %u writers and %u readers: %s\n", (unsigned long long)t->now,
                (unsigned long long)block, census.writers, census.readers, wrong);
        cgm_coh_dump_block(t->sys, block, stderr);
        t->failed = 1;
    }
}

static void env_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value,
                     unsigned level)
{
    struct tester *t = ctx;
    (void)level;
    if (op == CGM_OP_STORE) {
        t->golden[block] = value;
    } else if (value != t->golden[block]) {
        fprintf(stderr, "time %llu: core %d %s of block %llu returned %llu, last store %llu\n",
                (unsigned long long)t->now, core, op == CGM_OP_LOAD ? "load" : "fetch",
                (unsigned long long)block, (unsigned long long)value,
                (unsigned long long)t->golden[block]);
        cgm_coh_dump_block(t->sys, block, stderr);
        t->failed = 1;
    }
    check_block(t, block);
    struct outstanding *o = &t->out[core][tag];
    if (!o->used) {
        fprintf(stderr, "core %d: request %llu completed twice\n", core, (unsigned long long)tag);
        t->failed = 1;
    }
    o->used = false;
    t->inflight[core]--;
    t->completed++;
}

static void issue(struct tester *t, int core)
{
    if (t->stop_issue || t->inflight[core] >= K)
        return;
    unsigned slot = 0;
    while (t->out[core][slot].used)
        slot++;
    uint64_t r = rnd(t);
    uint8_t op;
    uint64_t block;
    if (r % 16 == 0) {
        op = CGM_OP_FETCH;
        block = (r >> 8) % t->ncode;
    } else {
        op = (r >> 4) % 3 == 0 ? CGM_OP_STORE : CGM_OP_LOAD;
        block = t->ncode + (r >> 8) % t->ndata;
    }
    uint64_t value = op == CGM_OP_STORE ? ++t->next_value : 0;
    /* Mark the slot first: a hit completes inside the call. */
    t->out[core][slot] = (struct outstanding){ .issued = t->now, .block = block, .used = true };
    t->inflight[core]++;
    int rc = cgm_coh_access(t->sys, core, &(struct cgm_coh_req){ .block = block, .tag = slot, .value = value,
                                                                  .op = op });
    if (rc < 0) {
        t->out[core][slot].used = false;
        t->inflight[core]--;
        return;
    }
    t->issued++;
    if (t->issued >= t->target)
        t->stop_issue = true;
}

static void watchdog(struct tester *t, uint64_t limit)
{
    for (unsigned c = 0; c < t->cores; c++)
        for (unsigned k = 0; k < K; k++) {
            struct outstanding *o = &t->out[c][k];
            if (o->used && t->now - o->issued > limit) {
                fprintf(stderr, "deadlock: core %u request on block %llu issued at %llu, now %llu\n", c,
                        (unsigned long long)o->block, (unsigned long long)o->issued,
                        (unsigned long long)t->now);
                cgm_coh_dump_block(t->sys, o->block, stderr);
                t->failed = 1;
                return;
            }
        }
}

struct run_cfg {
    const char *name;
    struct cgm_coh_config c;
    uint64_t ncode, ndata, requests;
    unsigned max_delay, mem_delay, issue_gap;
    uint64_t seed;
};

static void run(const struct run_cfg *rc, uint64_t *rows_total, uint64_t *out_signature)
{
    struct tester *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->cores = rc->c.cores;
    t->nodes = rc->c.cores + rc->c.slices;
    assert_true(t->nodes <= MAXN);
    t->ncode = rc->ncode;
    t->ndata = rc->ndata;
    t->target = rc->requests;
    t->max_delay = rc->max_delay;
    t->mem_delay = rc->mem_delay;
    t->rng = rc->seed;
    struct cgm_coh_config c = rc->c;
    c.blocks = rc->ncode + rc->ndata;
    t->golden = calloc(c.blocks, sizeof *t->golden);
    struct cgm_coh_env env = { .ctx = t, .send = env_send, .later = env_later, .done = env_done };
    char err[256] = "";
    t->sys = cgm_coh_create(&c, &env, err, sizeof err);
    if (!t->sys)
        fail_msg("%s", err);
    for (unsigned i = 0; i < t->cores; i++) {
        struct coh_event e = { .time = i, .kind = 2, .node = (int)i };
        push(t, e);
    }
    uint64_t steps = 0;
    while (t->q.n && !t->failed) {
        struct coh_event e = coh_events_pop(&t->q);
        t->now = e.time;
        if (e.kind == 0) {
            cgm_coh_deliver(t->sys, &e.m);
            check_block(t, e.m.block);
        } else if (e.kind == 1) {
            cgm_coh_wake(t->sys, e.node, e.block, e.what);
        } else {
            issue(t, e.node);
            if (!t->stop_issue) {
                struct coh_event n = { .time = t->now + 1 + rnd(t) % rc->issue_gap, .kind = 2, .node = e.node };
                push(t, n);
            }
        }
        if (++steps % 65536 == 0)
            watchdog(t, 2000000);
    }
    if (!t->failed && t->completed != t->issued) {
        fprintf(stderr, "%s: %llu requests never completed and nothing is left to happen:\n", rc->name,
                (unsigned long long)(t->issued - t->completed));
        watchdog(t, 0);
    }
    assert_false(t->failed);
    assert_int_equal(t->completed, t->issued);
    assert_true(t->issued >= rc->requests);

    uint64_t sig = coh_run_signature(t->sys, rows_total, t->now);
    if (out_signature)
        *out_signature = sig;
    uint64_t nacks = 0, evictions = 0, hits = 0, mshr_nacks = 0;
    for (unsigned i = 0; i < rc->c.slices; i++) {
        const struct cgm_coh_slice_stats *ss = cgm_coh_slice_stats(t->sys, (int)i);
        mshr_nacks += ss->mshr_nacks;
        /* The MSHR bound holds, and every entry was given back. */
        if (rc->c.l3_mshr)
            assert_true(ss->mshr_peak <= rc->c.l3_mshr);
        assert_int_equal(ss->mshr_used, 0);
    }
    if (rc->c.l3_mshr)
        assert_true(mshr_nacks > 0);
    for (unsigned i = 0; i < t->cores; i++) {
        nacks += cgm_coh_core_stats(t->sys, (int)i)->nacks_received;
        evictions += cgm_coh_core_stats(t->sys, (int)i)->evictions;
        hits += cgm_coh_core_stats(t->sys, (int)i)->hits;
    }
    printf("%s: %llu requests (%llu hits), %llu NACKs, %llu L1 evictions, %llu messages, %llu cycles, "
           "signature %016llx\n",
           rc->name, (unsigned long long)t->completed, (unsigned long long)hits,
           (unsigned long long)nacks, (unsigned long long)evictions,
           (unsigned long long)t->q.seq, (unsigned long long)t->now, (unsigned long long)sig);
    cgm_coh_destroy(t->sys);
    free(t->golden);
    coh_events_free(&t->q);
    free(t);
}

static double scale_factor(void) { return coh_scale_factor(); }
static uint64_t scale(uint64_t n) { return coh_scale(n); }

static const struct cgm_coh_config default_cfg = {
    .cores = 8, .slices = 4, .l1_sets = 64, .l1_ways = 8, .l1i_sets = 64, .l1i_ways = 8,
    .l2_sets = 512, .l2_ways = 8, .l1_wb_entries = 4,
    .l3_sets = 2048, .l3_ways = 16, .mshr = 16, .coalesce = 8, .wb_entries = 8, .l3_wb_entries = 16,
};

/* The five runs under protocol p (its controllers for the cores and
 * slices); every row of those kinds must be reached. */
static void random_coherence(const struct cgm_coh_protocol *p)
{
    uint64_t *rows = calloc(p->nrows, sizeof *rows);
    assert_non_null(rows);
    struct run_cfg runs[] = {
        { "default", default_cfg, 8, 40, scale(4000000), 20, 60, 6, 1 },
        { "small caches", { .cores = 8, .slices = 2, .l1_sets = 1, .l1_ways = 2, .l1i_sets = 1,
                            .l1i_ways = 2, .l2_sets = 2, .l2_ways = 2, .l1_wb_entries = 1,
                            .l3_sets = 2, .l3_ways = 4, .mshr = 2, .coalesce = 2,
                            .wb_entries = 1, .l3_wb_entries = 2, .l3_mshr = 2 },
          6, 30, scale(2500000), 12, 60, 4, 2 },
        { "tiny L3", { .cores = 8, .slices = 1, .l1_sets = 1, .l1_ways = 1, .l1i_sets = 1,
                       .l1i_ways = 1, .l2_sets = 1, .l2_ways = 2, .l1_wb_entries = 2,
                       .l3_sets = 1, .l3_ways = 6, .mshr = 3, .coalesce = 3,
                       .wb_entries = 2, .l3_wb_entries = 1 },
          4, 20, scale(2000000), 30, 80, 3, 3 },
        { "hot lines", { .cores = 8, .slices = 2, .l1_sets = 2, .l1_ways = 1, .l1i_sets = 2,
                         .l1i_ways = 2, .l2_sets = 4, .l2_ways = 2, .l1_wb_entries = 1,
                         .l3_sets = 4, .l3_ways = 4, .mshr = 4, .coalesce = 4,
                         .wb_entries = 2, .l3_wb_entries = 4 },
          2, 8, scale(2000000), 8, 40, 2, 4 },
        { "thrashing L3", { .cores = 8, .slices = 1, .l1_sets = 1, .l1_ways = 2, .l1i_sets = 1,
                            .l1i_ways = 1, .l2_sets = 1, .l2_ways = 4, .l1_wb_entries = 2,
                            .l3_sets = 1, .l3_ways = 2, .mshr = 2, .coalesce = 2,
                            .wb_entries = 2, .l3_wb_entries = 2 },
          1, 3, scale(500000), 40, 10, 3, 5 },
    };
    uint64_t total = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        runs[i].c.protocol = p;
        run(&runs[i], rows, NULL);
        total += runs[i].requests;
    }
    int missing = 0;
    for (unsigned r = 0; r < p->nrows; r++) {
        if (p->rows[r].kind != CGM_NODE_CORE && p->rows[r].kind != CGM_NODE_SLICE)
            continue; /* the GPU's tables: the mixed tester reaches them */
        if (!rows[r]) {
            printf("  Table %s row \"%s\": never reached\n", p->rows[r].table, p->rows[r].text);
            missing++; /* every row of the tables is modelled and reached */
        }
    }
    /* The rarest rows (a holder joining a forward after asking again)
     * take a few million requests; shortened runs only report them. */
    if (scale_factor() >= 0.3)
        assert_int_equal(missing, 0);
    printf("%s: %llu requests in all\n", p->name, (unsigned long long)total);
    free(rows);
}

static void test_random_coherence(void **state)
{
    (void)state;
    random_coherence(&cgm_coh_mesi);
}

/* MOESI: MESI's rows of the cores and slices and its own, O among the
 * copies the checker sees (a reader beside the S copies). */
static void test_random_coherence_moesi(void **state)
{
    (void)state;
    random_coherence(&cgm_coh_moesi);
}

static void test_same_seed_same_counts(void **state)
{
    (void)state;
    uint64_t rows[MESI_NROWS] = { 0 };
    struct run_cfg r = { "determinism", { .cores = 4, .slices = 2, .l1_sets = 1, .l1_ways = 2,
                                          .l1i_sets = 1, .l1i_ways = 2, .l2_sets = 2, .l2_ways = 2,
                                          .l1_wb_entries = 1, .l3_sets = 2, .l3_ways = 4,
                                          .mshr = 2, .coalesce = 2, .wb_entries = 1, .l3_wb_entries = 2 },
                         4, 20, 100000, 12, 60, 4, 99 };
    uint64_t a, b, c;
    run(&r, rows, &a);
    run(&r, rows, &b);
    r.seed = 100;
    run(&r, rows, &c);
    assert_int_equal(a, b);
    assert_int_not_equal(a, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_counts),
        cmocka_unit_test(test_random_coherence),
        cmocka_unit_test(test_random_coherence_moesi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
