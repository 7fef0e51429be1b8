/* What a request and a message carry: the byte mask of the bytes a request
 * touches, a message's price in bytes from its type's data column, the
 * lane each message takes between each pair of nodes, and a compute
 * unit's GLC and SLC bits and bytes from its request through the port's
 * translation, its vector L1's miss and the miss's retry to the L2 bank. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"
#include "models/memsys/memsys_internal.h"

static void test_byte_masks(void **state)
{
    (void)state;
    assert_true(cgm_coh_byte_mask(64, 8, 8) == 0xff00ull);
    assert_true(cgm_coh_byte_mask(64, 0, 1) == 1);
    assert_true(cgm_coh_byte_mask(64, 60, 4) == 0xfull << 60);
    assert_true(cgm_coh_byte_mask(64, 0, 64) == 0); /* the whole block */
    assert_true(cgm_coh_byte_mask(64, 4, 0) == 0);
    /* A 128-byte block: a bit per two bytes. */
    assert_true(cgm_coh_byte_mask(128, 2, 4) == 0x6);
    assert_true(cgm_coh_byte_mask(32, 16, 16) == 0xffffull << 16);
}

struct seen {
    struct cgm_coh_msg sent[16];
    unsigned nsent;
    int later_node, later_what;
};

static void env_send(void *ctx, const struct cgm_coh_msg *m)
{
    struct seen *w = ctx;
    assert_true(w->nsent < 16);
    w->sent[w->nsent++] = *m;
}

static void env_later(void *ctx, int node, uint64_t block, int what)
{
    struct seen *w = ctx;
    (void)block;
    w->later_node = node;
    w->later_what = what;
}

static void env_gpu_done(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value)
{
    (void)ctx, (void)cu, (void)tag, (void)op, (void)block, (void)value;
}

static struct cgm_coh_sys *one_cu_system(struct seen *w)
{
    struct cgm_memsys_config mc;
    cgm_memsys_default_config(&mc);
    cgm_memsys_default_gpu(&mc, 1, true, true);
    struct cgm_coh_config c = mc.coh;
    c.cores = 2;
    c.slices = 2;
    c.blocks = 1024;
    struct cgm_coh_env env = { .ctx = w, .send = env_send, .later = env_later, .gpu_done = env_gpu_done };
    char err[256] = "";
    struct cgm_coh_sys *s = cgm_coh_create(&c, &env, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    return s;
}

/* Data bytes by the column: a write-back its mask's bytes (all when 0),
 * the answers that carry the block only when written, grants always,
 * requests never. */
static void test_message_bytes(void **state)
{
    (void)state;
    struct seen w = { 0 };
    struct cgm_coh_sys *s = one_cu_system(&w);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_WB, .dirty = true }), 64);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_WB, .dirty = true, .mask = 0xf0 }), 4);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_FWD_ACK }), 0);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_FWD_ACK, .dirty = true }), 64);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_INV_ACK, .dirty = true }), 64);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_PUTS }), 64);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_GETX, .mask = 0xff }), 0);
    assert_int_equal(cgm_coh_msg_bytes(s, &(struct cgm_coh_msg){ .type = COH_NACK }), 0);
    cgm_coh_destroy(s);
}

/* The lanes as the timed system has always used them: into an L3 slice
 * the request lane, out of it the reply lane; a CU's requests to its bank
 * the request lane and its answers the coherence lane; the bank's to a CU
 * the reply lane; between cores, and a core and a bank, the coherence lane. */
static void test_lanes(void **state)
{
    (void)state;
    struct seen w = { 0 };
    struct cgm_coh_sys *s = one_cu_system(&w);
    /* nodes: cores 0 1, slices 2 3, the CU's L1 4, the bank 5 */
    int core = 0, other = 1, slice = 2, cu = cgm_coh_gpu_l1_node(s, 0), bank = cgm_coh_gpu_l2_node(s, 0);
    struct { int src, dst; uint8_t type; enum cgm_coh_lane lane; } cases[] = {
        { core, slice, COH_GETX, COH_LANE_REQUEST },
        { core, slice, COH_FWD_ACK, COH_LANE_REQUEST },
        { core, slice, COH_WB, COH_LANE_REQUEST },
        { bank, slice, COH_INV_ACK, COH_LANE_REQUEST },
        { slice, core, COH_PUTX, COH_LANE_REPLY },
        { slice, bank, COH_GET_FWD, COH_LANE_REPLY },
        { cu, bank, COH_GET, COH_LANE_REQUEST },
        { cu, bank, COH_GETX, COH_LANE_REQUEST },
        { cu, bank, COH_WB, COH_LANE_COHERENCE },
        { cu, bank, COH_FWD_ACK, COH_LANE_COHERENCE },
        { cu, bank, COH_INV_ACK, COH_LANE_COHERENCE },
        { bank, cu, COH_PUTS, COH_LANE_REPLY },
        { bank, cu, COH_FLUSH, COH_LANE_REPLY },
        { core, other, COH_PUTS, COH_LANE_COHERENCE },
        { core, bank, COH_FLUSH, COH_LANE_COHERENCE },
        { bank, core, COH_WB_ACK, COH_LANE_COHERENCE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cgm_coh_msg m = { .type = cases[i].type, .src = cases[i].src, .dst = cases[i].dst };
        assert_int_equal(cgm_coh_msg_lane(s, &m), cases[i].lane);
    }
    cgm_coh_destroy(s);
}

/* A CU's GLC store of 8 bytes at offset 24: the flags and the bytes ride on
 * the L1's GetX, and on its resend after the bank's NACK. */
static void test_flags_and_mask_reach_the_bank(void **state)
{
    (void)state;
    struct seen w = { 0 };
    struct cgm_coh_sys *s = one_cu_system(&w);
    struct cgm_coh_req r = { .block = 5, .tag = 1, .value = 9, .mask = cgm_coh_byte_mask(64, 24, 8), .bytes = 8,
                             .op = CGM_OP_STORE, .flags = CGM_COH_GLC };
    assert_int_equal(cgm_coh_gpu_access(s, 0, &r), 0);
    assert_int_equal(w.nsent, 1);
    assert_int_equal(w.sent[0].type, COH_GETX);
    assert_int_equal(w.sent[0].flags, CGM_COH_GLC);
    assert_true(w.sent[0].mask == 0xffull << 24);
    /* The bank refuses; the L1 asks again after the retry wake-up. */
    cgm_coh_deliver(s, &(struct cgm_coh_msg){ .type = COH_NACK, .src = w.sent[0].dst, .dst = w.sent[0].src,
                                              .block = 5, .req = COH_GETX });
    assert_int_equal(w.later_what, COH_WAKE_RETRY);
    cgm_coh_wake(s, w.later_node, 5, COH_WAKE_RETRY);
    assert_int_equal(w.nsent, 2);
    assert_int_equal(w.sent[1].type, COH_GETX);
    assert_int_equal(w.sent[1].flags, CGM_COH_GLC);
    assert_true(w.sent[1].mask == 0xffull << 24);
    cgm_coh_destroy(s);
}

/* The port's translation: the physical block, the bytes at the address's
 * offset in it, GLC and SLC as the coherence layer names them, atomics as
 * stores. */
static void test_port_request(void **state)
{
    (void)state;
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    cgm_memsys_default_gpu(&c, 1, true, true);
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_domains d;
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(eng, &c.dram, &d, err, sizeof err), 0);
    struct cgm_memsys *m = cgm_memsys_create(eng, &d, &c, NULL, NULL, err, sizeof err);
    if (!m)
        fail_msg("%s", err);
    struct cgm_gpu_request g = { .vaddr = 0x7008, .value = 3, .cu = 0, .bytes = 4, .op = CGM_GPU_ATOMIC,
                                 .flags = CGM_GPU_SLC };
    struct cgm_coh_req r = memsys_gpu_coh_request(m, &g, 0x1234 * 64 + 8, 7);
    assert_int_equal(r.block, 0x1234);
    assert_int_equal(r.tag, 7);
    assert_int_equal(r.value, 3);
    assert_int_equal(r.op, CGM_OP_STORE);
    assert_int_equal(r.flags, CGM_COH_SLC);
    assert_int_equal(r.bytes, 4);
    assert_true(r.mask == 0xf00ull);
    g = (struct cgm_gpu_request){ .bytes = 64, .op = CGM_GPU_LOAD, .flags = CGM_GPU_GLC | CGM_GPU_SLC };
    r = memsys_gpu_coh_request(m, &g, 64, 0);
    assert_int_equal(r.op, CGM_OP_LOAD);
    assert_int_equal(r.flags, CGM_COH_GLC | CGM_COH_SLC);
    assert_true(r.mask == 0);
    cgm_memsys_stop(m);
    cgm_memsys_destroy(m);
    ks_engine_destroy(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_byte_masks),
        cmocka_unit_test(test_message_bytes),
        cmocka_unit_test(test_lanes),
        cmocka_unit_test(test_flags_and_mask_reach_the_bank),
        cmocka_unit_test(test_port_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
