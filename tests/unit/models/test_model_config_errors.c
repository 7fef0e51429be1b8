/* The coherence system and the ring refuse a bad configuration with a
 * message that names what is wrong (and build from a good one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/knightsim.h"
#include "cgm/net.h"

static void no_send(void *ctx, const struct cgm_coh_msg *m) { (void)ctx; (void)m; }
static void no_later(void *ctx, int node, uint64_t block, int what)
{
    (void)ctx; (void)node; (void)block; (void)what;
}

static struct cgm_coh_config good_coh(void)
{
    return (struct cgm_coh_config){ .cores = 2, .slices = 2, .l1_sets = 1, .l1_ways = 1, .l1i_sets = 1,
                                    .l1i_ways = 1, .l2_sets = 2, .l2_ways = 2, .l1_wb_entries = 1,
                                    .l3_sets = 4, .l3_ways = 4, .mshr = 2, .coalesce = 2, .wb_entries = 1,
                                    .l3_wb_entries = 1, .blocks = 16 };
}

/* cgm_coh_create on c must fail with a message containing want. */
static void coh_refuses(const struct cgm_coh_config *c, const char *want)
{
    struct cgm_coh_env env = { .send = no_send, .later = no_later };
    char err[256] = "";
    struct cgm_coh_sys *s = cgm_coh_create(c, &env, err, sizeof err);
    assert_null(s);
    if (!strstr(err, want))
        fail_msg("message \"%s\" does not name \"%s\"", err, want);
}

static void test_coh_config_errors(void **state)
{
    (void)state;
    struct cgm_coh_env env = { .send = no_send, .later = no_later };
    struct cgm_coh_config c = good_coh();
    char err[256] = "";
    struct cgm_coh_sys *s = cgm_coh_create(&c, &env, err, sizeof err);
    assert_non_null(s);
    cgm_coh_destroy(s);

    c = good_coh();
    c.cores = 0;
    coh_refuses(&c, "cores");
    c = good_coh();
    c.slices = 3;
    coh_refuses(&c, "slices");
    c = good_coh();
    c.wb_entries = 0;
    coh_refuses(&c, "write-back");
    c = good_coh();
    c.gpu = (struct cgm_coh_gpu_config){ .cus = 2, .banks = 1, .l1_sets = 1, .l1_ways = 1, .l1_mshr = 1,
                                         .l1_coalesce = 1, .l1_wb_entries = 1, .l2_sets = 1, .l2_ways = 1,
                                         .l2_mshr = 1, .l2_coalesce = 1, .l2_wb_entries = 1, .coherent = true };
    coh_refuses(&c, "coherent GPU");
    c.gpu.shared_llc = true;
    c.gpu.banks = 3;
    coh_refuses(&c, "banks");
}

static bool no_deliver(void *ctx, int ep, struct cgm_net_packet *p)
{
    (void)ctx; (void)ep; (void)p;
    return true;
}

static void test_net_config_errors(void **state)
{
    (void)state;
    ks_engine *eng = ks_engine_create(NULL);
    assert_non_null(eng);
    struct cgm_net_config c = { .switches = 1, .local_ports = 2, .queue_size = 4, .flit_bytes = 32, .latency = 1 };
    char err[256] = "";
    assert_null(cgm_net_create(eng, NULL, &c, no_deliver, NULL, err, sizeof err));
    assert_non_null(strstr(err, "have 1 switches"));
    c.switches = 4;
    c.local_ports = 7;
    assert_null(cgm_net_create(eng, NULL, &c, no_deliver, NULL, err, sizeof err));
    assert_non_null(strstr(err, "7 ports"));
    c.local_ports = 2;
    struct cgm_net *n = cgm_net_create(eng, NULL, &c, no_deliver, NULL, err, sizeof err);
    assert_non_null(n);
    cgm_net_stop(n);
    ks_run(eng);
    cgm_net_destroy(n);
    ks_engine_destroy(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coh_config_errors),
        cmocka_unit_test(test_net_config_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
