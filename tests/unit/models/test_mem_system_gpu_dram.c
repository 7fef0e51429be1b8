/* A discrete GPU's own memory (gpu_dram_on): its L2 banks' misses reach
 * the GPU's DRAM and none the host's, the cores' misses the host's and none
 * the GPU's, each counted once per block by the arithmetic of distinct
 * blocks and the L2's capacity; both DRAMs keep their timing; the values
 * stored come back; a GDDR5 preset runs beside the default clocks (its tCK
 * is 2/3 ns exactly, so the clocks have a common time base); bad
 * configurations are refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cgm/coh.h"
#include "cgm/memsys.h"

enum { CUS = 4, WINDOW = 8 };

/* One agent (a CU, or core 0) walking blocks first..first+n once, a load
 * (or a store) of 8 bytes in each, WINDOW in flight. */
struct walker {
    struct cgm_memsys *ms;
    struct cgm_gpu_mem_port port;
    bool gpu, store;
    uint64_t first, n, issued, done, bad;
    unsigned outstanding;
};

static uint64_t value_of(uint64_t block) { return block * 2654435761u + 1; }

static void gpu_done(void *ctx, const struct cgm_gpu_request *r, uint64_t value, uint64_t gpu_cycle)
{
    struct walker *w = ctx;
    (void)gpu_cycle;
    w->done++;
    w->outstanding--;
    if (r->op == CGM_GPU_LOAD && w->store == false && value != 0 && value != value_of(r->vaddr / 64))
        w->bad++;
}

static void cpu_done(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t addr, uint64_t value, uint64_t cycle)
{
    struct walker *w = ctx;
    (void)core, (void)tag, (void)op, (void)addr, (void)value, (void)cycle;
    w->done++;
    w->outstanding--;
}

static void walker_main(void *arg)
{
    struct walker *w = arg;
    while (w->issued < w->n) {
        if (w->outstanding < WINDOW) {
            uint64_t block = w->first + w->issued, addr = block * 64;
            bool taken;
            w->outstanding++; /* a hit completes inside the call */
            if (w->gpu) {
                struct cgm_gpu_request q = { .vaddr = addr, .tag = w->issued, .cu = 0, .bytes = 8,
                                             .value = w->store ? value_of(block) : 0,
                                             .op = w->store ? CGM_GPU_STORE : CGM_GPU_LOAD };
                taken = w->port.access(w->port.ctx, &q);
            } else {
                taken = cgm_memsys_access(w->ms, 0, w->store ? CGM_OP_STORE : CGM_OP_LOAD, addr, w->issued,
                                          w->store ? value_of(block) : 0);
            }
            if (taken)
                w->issued++;
            else
                w->outstanding--;
        }
        ks_pause(1);
    }
}

static struct cgm_memsys_config discrete_cfg(void)
{
    struct cgm_memsys_config c;
    cgm_memsys_default_config(&c);
    c.cores = 2;
    c.slices = 2;
    c.mem_bytes = 16 << 20;
    c.check_dram = true;
    cgm_memsys_default_gpu(&c, CUS, false, false); /* NC-MC: misses to memory, pages of its own */
    c.gpu_dram_on = true;
    assert_int_equal(cgm_dram_preset("GDDR5", &c.gpu_dram), 0);
    return c;
}

struct system {
    ks_engine *eng;
    struct cgm_memsys_domains d;
    struct cgm_memsys *ms;
    struct walker gw, cw;
};

static void system_create(struct system *s, const struct cgm_memsys_config *c)
{
    memset(s, 0, sizeof *s);
    s->eng = ks_engine_create(NULL);
    assert_non_null(s->eng);
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(s->eng, &c->dram, &s->d, err, sizeof err), 0);
    assert_int_equal(cgm_memsys_gpu_dram_domain_create(s->eng, &c->gpu_dram, &s->d, err, sizeof err), 0);
    s->ms = cgm_memsys_create(s->eng, &s->d, c, cpu_done, &s->cw, err, sizeof err);
    if (!s->ms)
        fail_msg("%s", err);
    s->gw = (struct walker){ .ms = s->ms, .gpu = true };
    s->gw.port = cgm_memsys_gpu_port(s->ms, NULL, gpu_done, &s->gw);
    s->cw = (struct walker){ .ms = s->ms };
}

/* Runs the walkers given blocks to walk until the system is idle. */
static void walk(struct system *s, struct walker *w, uint64_t first, uint64_t n, bool store)
{
    w->first = first;
    w->n = n;
    w->issued = w->done = 0;
    w->store = store;
    ks_context_opts o = { .name = w->gpu ? "cu" : "core", .domain = w->gpu ? s->d.gpu : s->d.cpu };
    assert_non_null(ks_context_create_opts(s->eng, walker_main, w, &o));
    assert_int_equal(ks_run_cycles(s->eng, s->d.gpu, 1000 * n + 100000), KS_STOP_IDLE);
    assert_int_equal(w->done, n);
}

static void system_destroy(struct system *s)
{
    assert_string_equal(cgm_memsys_dram_check_error(s->ms), "");
    assert_int_equal(cgm_memsys_stats(s->ms)->dram_violations, 0);
    cgm_memsys_stop(s->ms);
    cgm_memsys_destroy(s->ms);
    ks_engine_destroy(s->eng);
}

static uint64_t gpu_dram_reads(const struct system *s) { return cgm_memsys_gpu_dram_requests(s->ms)->reads; }
static uint64_t gpu_dram_writes(const struct system *s) { return cgm_memsys_gpu_dram_requests(s->ms)->writes; }
static uint64_t host_reads(const struct system *s) { return cgm_memsys_stats(s->ms)->mem_reads; }
static uint64_t host_writes(const struct system *s) { return cgm_memsys_stats(s->ms)->mem_writes; }

/* The default clocks (4 GHz CPU, 1 GHz GPU, 2 GHz system) with GDDR5 as
 * either DRAM: 1.5 GHz has a common time base with them (0.667 ns did
 * not: 1499250375 Hz against 4 GHz is beyond KnightSim's 10^14 Hz). */
static void test_gddr5_has_a_time_base(void **state)
{
    (void)state;
    struct cgm_dram_config g;
    assert_int_equal(cgm_dram_preset("GDDR5", &g), 0);
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_domains d;
    char err[256];
    assert_int_equal(cgm_memsys_default_domains(eng, &g, &d, err, sizeof err), 0);
    assert_int_equal(cgm_memsys_gpu_dram_domain_create(eng, &g, &d, err, sizeof err), 0);
    assert_int_equal(ks_domain_freq_hz(d.dram), 1500000000ull);
    assert_int_equal(ks_domain_freq_hz(d.gpu_dram), 1500000000ull);
    /* the least common multiple of 4, 2, 1 and 1.5 GHz: 12 GHz */
    assert_int_equal(ks_tick_hz(eng), 12000000000ull);
    ks_engine_destroy(eng);
}

/* A CU loads 512 distinct blocks (the one L2 bank of 4 CUs holds 1024):
 * 512 L2 misses, 512 reads of the GPU's DRAM, none of the host's; then
 * core 0 loads 300 other blocks: 300 reads of the host's DRAM, none more
 * of the GPU's; the GPU's blocks again: all L2 hits, nothing more below. */
static void test_gpu_misses_reach_gpu_dram_only(void **state)
{
    (void)state;
    struct cgm_memsys_config c = discrete_cfg();
    struct system s;
    system_create(&s, &c);
    assert_non_null(cgm_memsys_gpu_dram(s.ms));
    walk(&s, &s.gw, 0, 512, false);
    assert_int_equal(gpu_dram_reads(&s), 512);
    assert_int_equal(gpu_dram_writes(&s), 0);
    assert_int_equal(host_reads(&s), 0);
    assert_int_equal(cgm_dram_stats(cgm_memsys_gpu_dram(s.ms))->reads, 512);
    assert_int_equal(cgm_dram_stats(cgm_memsys_dram(s.ms))->reads, 0);
    assert_int_equal(cgm_coh_gpu_l2_stats(cgm_memsys_coh(s.ms), 0)->misses, 512);
    walk(&s, &s.cw, 4096, 300, false);
    assert_int_equal(host_reads(&s), 300);
    assert_int_equal(gpu_dram_reads(&s), 512);
    walk(&s, &s.gw, 0, 512, false);
    assert_int_equal(gpu_dram_reads(&s), 512);
    assert_int_equal(host_reads(&s), 300);
    system_destroy(&s);
}

/* A CU stores into 3072 distinct blocks through an L2 of 1024: every block
 * is fetched (3072 reads) and the 2048 dirty blocks evicted are written
 * back to the GPU's DRAM (the last 1024 stay in the L2); the host's DRAM
 * sees none of it. Loading them back reads the values stored. */
static void test_gpu_write_backs_reach_gpu_dram_only(void **state)
{
    (void)state;
    struct cgm_memsys_config c = discrete_cfg();
    struct system s;
    system_create(&s, &c);
    const struct cgm_coh_gpu_l2_stats *l2 = cgm_coh_gpu_l2_stats(cgm_memsys_coh(s.ms), 0);
    uint64_t lines = (uint64_t)c.coh.gpu.l2_sets * c.coh.gpu.l2_ways;
    assert_int_equal(lines, 1024);
    walk(&s, &s.gw, 0, 3 * lines, true);
    assert_int_equal(l2->misses, 3 * lines);
    assert_int_equal(gpu_dram_reads(&s), 3 * lines);
    assert_int_equal(gpu_dram_writes(&s), 2 * lines);
    assert_int_equal(host_reads(&s) + host_writes(&s), 0);
    walk(&s, &s.gw, 0, 3 * lines, false);
    assert_int_equal(s.gw.bad, 0);
    assert_int_equal(host_reads(&s) + host_writes(&s), 0);
    system_destroy(&s);
}

static void refused(struct cgm_memsys_config *c, bool with_domain, const char *what)
{
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_domains d;
    char err[256] = "";
    assert_int_equal(cgm_memsys_default_domains(eng, &c->dram, &d, err, sizeof err), 0);
    if (with_domain)
        assert_int_equal(cgm_memsys_gpu_dram_domain_create(eng, &c->gpu_dram, &d, err, sizeof err), 0);
    assert_null(cgm_memsys_create(eng, &d, c, NULL, NULL, err, sizeof err));
    if (!strstr(err, what))
        fail_msg("\"%s\" does not say %s", err, what);
    ks_engine_destroy(eng);
}

static void test_bad_configurations_are_refused(void **state)
{
    (void)state;
    struct cgm_memsys_config c = discrete_cfg();
    refused(&c, false, "clock domain is missing");
    c.coh.gpu.shared_llc = true;
    refused(&c, true, "shared_llc");
    c = discrete_cfg();
    c.gpu_own_pages = false;
    refused(&c, true, "gpu_own_pages");
    c = discrete_cfg();
    c.gpu_dram.t.tck_ns = 0;
    ks_engine *eng = ks_engine_create(NULL);
    struct cgm_memsys_domains d;
    char err[256] = "";
    assert_int_equal(cgm_memsys_gpu_dram_domain_create(eng, &c.gpu_dram, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "GPU's DRAM clock"));
    ks_engine_destroy(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gddr5_has_a_time_base),
        cmocka_unit_test(test_gpu_misses_reach_gpu_dram_only),
        cmocka_unit_test(test_gpu_write_backs_reach_gpu_dram_only),
        cmocka_unit_test(test_bad_configurations_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
