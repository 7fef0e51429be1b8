/* The host-device link and DMA engine: a transfer of N bytes takes the
 * latency plus N and its packets' overhead over the bandwidth (within 1%,
 * from the arithmetic of the settings); transfers that overlap share the
 * link; small transfers are latency-bound and large ones reach the
 * bandwidth (seed 004 Fig. 3.5's shape); the DMA engine counts where its
 * bursts came from and waits for the first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/xfer.h"

/* PCIe 2.0 x16: 500 MB/s per lane, 1 us, 256-byte payloads, 24 bytes each. */
static const struct cgm_link_config pcie2 = {
    .lanes = 16, .lane_mbps = 500, .latency_ps = 1000000, .max_payload = 256, .packet_overhead = 24
};

static void within_1pct(double got, double want)
{
    double d = got > want ? got - want : want - got;
    if (d > want / 100) {
        print_error("got %.0f, want %.0f\n", got, want);
        fail();
    }
}

static void one_transfer(void **state)
{
    (void)state;
    struct cgm_link l;
    char err[128];
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    /* 1 MiB: 4096 packets of 256 bytes, 24 bytes each on top; 8 GB/s is 8 bytes per ns */
    uint64_t n = 1 << 20;
    double want = 1e6 + (n + 4096.0 * 24) / 8.0 * 1000;
    within_1pct((double)cgm_link_send(&l, 0, n), want);
    assert_int_equal(l.packets, 4096);
    /* a later one, on an idle link, starts at its own time */
    uint64_t t0 = 10000000000ull;
    within_1pct((double)(cgm_link_send(&l, t0, n) - t0), want);
    /* no data, no time */
    assert_int_equal(cgm_link_send(&l, 7, 0), 7);
}

static void two_share(void **state)
{
    (void)state;
    struct cgm_link l;
    char err[128];
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    uint64_t n = 4 << 20;
    double wire = (n + (double)(n / 256) * 24) / 8.0 * 1000;
    uint64_t a = cgm_link_send(&l, 0, n), b = cgm_link_send(&l, 0, n);
    within_1pct((double)a, 1e6 + wire);
    /* the second waits for the first's packets: both took the bandwidth of one */
    within_1pct((double)b, 1e6 + 2 * wire);
    assert_int_equal(l.busy_ps, cgm_link_wire_ps(&pcie2, n) * 2);
}

static void bandwidth_curve(void **state)
{
    (void)state;
    /* effective bandwidth bytes/time: a 4 KiB transfer spends most of its
     * time in the latency, a 64 MiB one reaches 90% of 8 GB/s x 256/280 */
    double peak = 8.0 * 256 / 280; /* bytes per ns */
    struct cgm_link l;
    char err[128];
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    double small = 4096.0 / ((double)cgm_link_send(&l, 0, 4096) / 1000);
    assert_true(small < peak / 2);
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    double big = (double)(64 << 20) / ((double)cgm_link_send(&l, 0, 64 << 20) / 1000);
    assert_true(big > 0.9 * peak && big <= peak);
}

static uint64_t half_cached(void *ctx, uint64_t addr, bool *in_cache)
{
    (void)ctx;
    *in_cache = addr < 0x1000 + 512;
    return *in_cache ? 10000 : 60000;
}

static void dma_bursts(void **state)
{
    (void)state;
    struct cgm_link l;
    struct cgm_dma d;
    char err[128];
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    cgm_dma_init(&d, &l, 128, half_cached, NULL);
    /* 1 KiB from 0x1000: 8 bursts, 4 in the cache; the link starts after the first (10 ns) */
    uint64_t t = cgm_dma_copy(&d, 0, 0x1000, 1024);
    assert_int_equal(d.bursts_cache, 4);
    assert_int_equal(d.bursts_memory, 4);
    assert_int_equal(t, 10000 + cgm_link_wire_ps(&pcie2, 1024) + 1000000);
    /* from memory first: its latency instead */
    assert_int_equal(cgm_link_init(&l, &pcie2, err, sizeof err), 0);
    assert_int_equal(cgm_dma_copy(&d, 0, 0x9000, 1024), 60000 + cgm_link_wire_ps(&pcie2, 1024) + 1000000);
}

static void bad_settings(void **state)
{
    (void)state;
    struct cgm_link l;
    char err[128];
    struct cgm_link_config c = pcie2;
    c.lanes = 0;
    assert_int_equal(cgm_link_init(&l, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "lanes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_transfer), cmocka_unit_test(two_share), cmocka_unit_test(bandwidth_curve),
        cmocka_unit_test(dma_bursts), cmocka_unit_test(bad_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
