/* A vector L1 asked again for a request it refused (its one MSHR entry
 * busy) refuses it again and counts each refusal, without looking again
 * only while nothing has changed: once the bank's answer frees the entry,
 * the same request is taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"

struct seen {
    struct cgm_coh_msg sent[8];
    unsigned nsent, done;
    uint64_t done_tag;
};

static void env_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct seen *w = ctx;
    assert_true(w->nsent < 8);
    w->sent[w->nsent++] = *m;
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    (void)ctx, (void)node, (void)block, (void)what;
}

static void env_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    struct seen *w = ctx;
    (void)cu, (void)op, (void)block, (void)value;
    w->done++;
    w->done_tag = tag;
}

static void test_refusal_stands_until_an_answer(void **state)
{
    (void)state;
    struct cgm_memsys_config mc;
    cgm_memsys_default_config(&mc);
    cgm_memsys_default_gpu(&mc, 1, false, false);
    struct cgm_coh_config c = mc.coh; /* as cgm_memsys_create completes it */
    c.cores = mc.cores;
    c.slices = mc.slices;
    c.blocks = 1024;
    c.gpu.l1_mshr = 1;
    struct seen w = { 0 };
    struct cgm_coh_env env = { .ctx = &w, .send = env_send, .later = env_later, .gpu_done = env_gpu_done };
    char err[256] = "";
    struct cgm_coh_sys *s = cgm_coh_create(&c, &env, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    const struct cgm_coh_gpu_l1_stats *st = cgm_coh_gpu_l1_stats(s, 0);

    /* a miss: the entry */
    assert_int_equal(cgm_coh_gpu_access(s, 0, &(struct cgm_coh_req){ .block = 0, .tag = 1, .op = CGM_OP_LOAD }), 0);
    assert_int_equal(w.nsent, 1);
    assert_int_equal(w.sent[0].type, COH_GET);
    for (unsigned k = 1; k <= 3; k++) { /* another block: no entry for it */
        assert_int_equal(cgm_coh_gpu_access(s, 0, &(struct cgm_coh_req){ .block = 1, .tag = 2, .op = CGM_OP_LOAD }), -1);
        assert_int_equal(cgm_coh_gpu_l1_stats(s, 0)->stalls, k);
    }
    assert_int_equal(w.nsent, 1);

    /* The bank's answer fills block 0 and frees the entry. */
    cgm_coh_deliver(s, &(struct cgm_coh_msg){ .type = COH_PUTCLNX, .src = w.sent[0].dst, .dst = w.sent[0].src,
                                              .block = 0, .data = 7 });
    assert_int_equal(w.done, 1);
    assert_int_equal(w.done_tag, 1);
    assert_int_equal(cgm_coh_gpu_access(s, 0, &(struct cgm_coh_req){ .block = 1, .tag = 2, .op = CGM_OP_LOAD }), 0);
    assert_int_equal(w.nsent, 2);
    assert_int_equal(w.sent[1].block, 1);
    st = cgm_coh_gpu_l1_stats(s, 0);
    assert_int_equal(st->stalls, 3);
    assert_int_equal(st->accesses, 2);
    assert_int_equal(st->misses, 2);

    /* A different request is looked at, not answered from the last refusal:
     * block 0 is a hit although the entry is busy again. */
    assert_int_equal(cgm_coh_gpu_access(s, 0, &(struct cgm_coh_req){ .block = 2, .tag = 3, .op = CGM_OP_LOAD }), -1);
    assert_int_equal(cgm_coh_gpu_access(s, 0, &(struct cgm_coh_req){ .block = 0, .tag = 4, .op = CGM_OP_LOAD }), 1);
    assert_int_equal(w.done_tag, 4);
    assert_int_equal(cgm_coh_gpu_l1_stats(s, 0)->stalls, 4);
    cgm_coh_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusal_stands_until_an_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
