/* The compute units on the memory system's GPU hierarchy (gpu.memory =
 * hierarchy): its caches are listed with the CPU's, one vector L1 per
 * compute unit and the L2 banks the seed builds (one per four compute
 * units, a power of two), and every request the compute units send reaches
 * a vector L1; every GPU workload completes in each of the four
 * organisations; the [gpu.l1] keys reach the L1s; under vips-g a region
 * of interest shows the pages of each class at its end; a GPU address the memory
 * system cannot place fails the replay, naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/trace.h"
#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_run.h"

/* The sum of FIELD over the caches of KIND; their number in *count. */
static double caches_sum(const cJSON *j, const char *kind, const char *field, unsigned *count)
{
    double sum = 0;
    unsigned n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "caches")) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(c, "kind");
        if (!cJSON_IsString(k) || strcmp(k->valuestring, kind))
            continue;
        n++;
        sum += gpu_stat(c, field);
    }
    if (count)
        *count = n;
    return sum;
}

static void test_gpu_caches_in_statistics(void **state)
{
    (void)state;
    static const unsigned cus[] = { 1, 4, 8, 12, 16 };
    for (size_t i = 0; i < sizeof cus / sizeof cus[0]; i++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        assert_int_equal(cfg.gpu_memory, RP_GPU_MEM_HIERARCHY); /* the default for GPU traces */
        cfg.gpu_cus = cus[i];
        cJSON *j = gpu_replay_stats(gpu_traces[1], &cfg);
        unsigned l1s, l2s, banks = 1;
        while (banks * 2 <= cus[i] / 4)
            banks *= 2;
        unsigned scalars;
        double accesses = caches_sum(j, "gpu_l1v", "accesses", &l1s);
        double scalar_accesses = caches_sum(j, "gpu_scalar", "accesses", &scalars);
        caches_sum(j, "gpu_l2", "accesses", &l2s);
        assert_int_equal(l1s, cus[i]);
        assert_int_equal(l2s, banks);
        assert_int_equal(scalars, cus[i]); /* one scalar cache per CU by default */
        double sent = 0, scalar_sent = 0;
        for (unsigned c = 0; c < cus[i]; c++) {
            char k[96];
            snprintf(k, sizeof k, "gpu.compute_units.%u.memory.vector_requests", c);
            sent += gpu_stat(j, k);
            snprintf(k, sizeof k, "gpu.compute_units.%u.memory.scalar_requests", c);
            scalar_sent += gpu_stat(j, k); /* scalar loads go to the scalar caches */
        }
        assert_true(sent > 0 && scalar_sent > 0);
        assert_int_equal(accesses, sent);
        assert_int_equal(scalar_accesses, scalar_sent);
        cJSON_Delete(j);
        /* gpu.l2.banks sets the count whatever the compute units */
        cfg.gpu_l2_banks = 4;
        j = gpu_replay_stats(gpu_traces[1], &cfg);
        caches_sum(j, "gpu_l2", "accesses", &l2s);
        assert_int_equal(l2s, 4);
        cJSON_Delete(j);
    }
}

/* Every workload issues every recorded wavefront instruction in NC-MC,
 * NC-L3, C-MC and C-L3, and says which organisation it ran in; the fully
 * coherent system (no copies, no flushes, the L3 shared) is never slower
 * than the traditional one by more than 2% (seed 000 Sec. 4.3: it never is
 * by much, and gains on most workloads). */
static void test_workloads_complete_in_every_organisation(void **state)
{
    (void)state;
    static const char *const names[2][2] = { { "NC-MC", "NC-L3" }, { "C-MC", "C-L3" } };
    for (size_t i = 0; i < GPU_NWORK; i++) {
        uint64_t recorded = gpu_recorded_instructions(gpu_traces[i]);
        double cycles[2][2];
        for (unsigned coh = 0; coh < 2; coh++)
            for (unsigned conn = 0; conn < 2; conn++) {
                struct rp_config cfg;
                rp_config_defaults(&cfg);
                cfg.gpu_coherence = coh ? RP_GPU_COHERENT : RP_GPU_NONCOHERENT;
                cfg.gpu_connection = conn ? RP_GPU_TO_L3 : RP_GPU_TO_MC;
                cJSON *j = gpu_replay_stats(gpu_traces[i], &cfg);
                assert_int_equal(gpu_stat(j, "gpu.wavefront_instructions"), recorded);
                const cJSON *mem = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "gpu"),
                                                                    "memory");
                const cJSON *org = cJSON_GetObjectItemCaseSensitive(mem, "organisation");
                assert_true(cJSON_IsString(org));
                assert_string_equal(org->valuestring, names[coh][conn]);
                cycles[coh][conn] = gpu_stat(j, "cycles");
                cJSON_Delete(j);
            }
        if (cycles[1][1] > 1.02 * cycles[0][0])
            print_error("%s: C-L3 %.0f cycles, NC-MC %.0f\n", gpu_workloads[i], cycles[1][1], cycles[0][0]);
        assert_true(cycles[1][1] <= 1.02 * cycles[0][0]);
    }
}

/* [gpu.l1] reaches the vector L1s: a smaller L1 misses at least as often;
 * a slower one makes the kernels slower; with one request per lane
 * (l1-mshr) a coalescer of one entry parks fewer requests than one of 32,
 * and the kernels wait longer. */
static void test_l1_keys_reach_the_caches(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cJSON *base = gpu_replay_stats(gpu_traces[0], &cfg);
    cfg.gpu_l1.size = 1024;
    cJSON *small = gpu_replay_stats(gpu_traces[0], &cfg);
    assert_true(caches_sum(small, "gpu_l1v", "misses", NULL) > caches_sum(base, "gpu_l1v", "misses", NULL));
    rp_config_defaults(&cfg);
    cfg.gpu_l1.latency = 20;
    cJSON *slow = gpu_replay_stats(gpu_traces[0], &cfg);
    assert_true(gpu_kernel_cycles(slow) > gpu_kernel_cycles(base));
    rp_config_defaults(&cfg);
    cfg.cu.coalescer = RP_COALESCE_L1_MSHR;
    cJSON *wide = gpu_replay_stats(gpu_traces[0], &cfg);
    cfg.gpu_l1.coalescer = 1;
    cJSON *narrow = gpu_replay_stats(gpu_traces[0], &cfg);
    assert_true(caches_sum(narrow, "gpu_l1v", "coalesced", NULL) < caches_sum(wide, "gpu_l1v", "coalesced", NULL));
    assert_true(gpu_kernel_cycles(narrow) > gpu_kernel_cycles(wide));
    cJSON_Delete(base);
    cJSON_Delete(small);
    cJSON_Delete(slow);
    cJSON_Delete(wide);
    cJSON_Delete(narrow);
}

/* GPU buffers the trace allocates, and the bytes its copies move between
 * host memory and one of them (the CPU's copies; read from the events). */
struct copies {
    uint64_t addr[64], bytes[64];
    unsigned n;
    uint64_t moved;
};

static bool in_buffer(const struct copies *c, uint64_t a)
{
    for (unsigned i = 0; i < c->n; i++)
        if (a >= c->addr[i] && a - c->addr[i] < c->bytes[i])
            return true;
    return false;
}

static struct copies recorded_copies(const char *path)
{
    char err[256];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    struct copies c = { .n = 0 };
    for (size_t s = 0; s < cgm_reader_stream_count(r); s++) {
        if (cgm_reader_stream(r, s)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        struct cgm_riter *it = cgm_riter_open(r, s);
        const uint8_t *rec;
        size_t len;
        struct cgm_event ev;
        while (cgm_riter_next(it, &rec, &len) == 1) {
            if (rec[0] == CGM_EV_GPU_ALLOC && cgm_event_decode(rec, len, &ev) == 0 && c.n < 64) {
                c.addr[c.n] = ev.f[CGM_EVF_GPU_ALLOC_ADDR];
                c.bytes[c.n++] = ev.f[CGM_EVF_GPU_ALLOC_BYTES];
            } else if (rec[0] == CGM_EV_GPU_COPY && cgm_event_decode(rec, len, &ev) == 0 &&
                       in_buffer(&c, ev.f[CGM_EVF_GPU_COPY_DST]) != in_buffer(&c, ev.f[CGM_EVF_GPU_COPY_SRC])) {
                c.moved += ev.f[CGM_EVF_GPU_COPY_BYTES];
            }
        }
        cgm_riter_close(it);
    }
    cgm_reader_close(r);
    return c;
}

static uint64_t recorded_copy_bytes(const char *path) { return recorded_copies(path).moved; }

static cJSON *run_in(const char *trace, int coherent, int l3)
{
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.gpu_coherence = coherent ? RP_GPU_COHERENT : RP_GPU_NONCOHERENT;
    cfg.gpu_connection = l3 ? RP_GPU_TO_L3 : RP_GPU_TO_MC;
    return gpu_replay_stats(trace, &cfg);
}

/* Copies as the seed charges them: in NC-MC every byte a recorded copy
 * moves between host memory and a GPU buffer is copied by the CPU and its
 * blocks flushed; in C-MC only flushed; in C-L3 nothing. A program that
 * shares its buffers by pointer is charged for the copies it would need
 * in NC-MC, for none in C-L3. The threads' time in them is system time. */
static void test_copies_per_organisation(void **state)
{
    (void)state;
    static const size_t copying[] = { 2, 8, 10 }; /* lud, collab_matmul copy, collab_knn copy */
    for (size_t x = 0; x < sizeof copying / sizeof copying[0]; x++) {
        const char *t = gpu_traces[copying[x]];
        uint64_t moved = recorded_copy_bytes(t);
        assert_true(moved > 0);
        cJSON *nc = run_in(t, 0, 0), *cmc = run_in(t, 1, 0), *cl3 = run_in(t, 1, 1);
        assert_int_equal(gpu_stat(nc, "gpu.copies.bytes_copied"), moved);
        assert_true(gpu_stat(nc, "gpu.copies.blocks_flushed") >= moved / 64);
        assert_int_equal(gpu_stat(nc, "gpu.copies.implicit"), 0);
        assert_int_equal(gpu_stat(cmc, "gpu.copies.bytes_copied"), 0);
        assert_true(gpu_stat(cmc, "gpu.copies.blocks_flushed") >= moved / 64);
        assert_true(gpu_stat(cmc, "gpu.copies.system_cycles") < gpu_stat(nc, "gpu.copies.system_cycles"));
        assert_int_equal(gpu_stat(cl3, "gpu.copies.jobs"), 0);
        assert_int_equal(gpu_stat(cl3, "gpu.copies.system_cycles"), 0);
        assert_true(gpu_stat(nc, "breakdown.system") >= gpu_stat(nc, "gpu.copies.system_cycles"));
        cJSON_Delete(nc);
        cJSON_Delete(cmc);
        cJSON_Delete(cl3);
    }
    /* hotspot shares its buffers: copied in NC-MC as if it copied them */
    cJSON *nc = run_in(gpu_traces[0], 0, 0), *cl3 = run_in(gpu_traces[0], 1, 1);
    assert_true(gpu_stat(nc, "gpu.copies.implicit") > 0);
    assert_true(gpu_stat(nc, "gpu.copies.bytes_copied") > 0);
    assert_int_equal(gpu_stat(cl3, "gpu.copies.system_cycles"), 0);
    cJSON_Delete(nc);
    cJSON_Delete(cl3);
}

/* The Study 1 breakdown partitions the cores' cycles (with their idle
 * cycles) and the compute units' cycles (with theirs). In a region of
 * interest a core's idle cycles are counted when it wakes, so there (WHOLE
 * false) busy, stall and traps only fit within the cores' cycles. */
static void check_breakdown(const cJSON *j, const struct rp_config *cfg, bool whole)
{
    double cpu = 0, idle = 0, trap = 0, cu_idle = 0;
    char k[96];
    for (unsigned c = 0; c < cfg->cores; c++) {
        snprintf(k, sizeof k, "cores.%u.cycles", c);
        cpu += gpu_stat(j, k);
        snprintf(k, sizeof k, "cores.%u.stall_cycles.idle", c);
        idle += gpu_stat(j, k);
        snprintf(k, sizeof k, "cores.%u.stall_cycles.syscall", c);
        trap += gpu_stat(j, k);
    }
    for (unsigned c = 0; c < cfg->gpu_cus; c++) {
        snprintf(k, sizeof k, "gpu.compute_units.%u.idle_cycles", c);
        cu_idle += gpu_stat(j, k);
    }
    double used = gpu_stat(j, "breakdown.cpu_busy") + gpu_stat(j, "breakdown.cpu_stall") + trap;
    if (whole)
        assert_int_equal(used + idle, cpu);
    else
        assert_true(used <= cpu);
    assert_int_equal(gpu_stat(j, "breakdown.gpu_busy") + gpu_stat(j, "breakdown.gpu_stall") + cu_idle,
                     cfg->gpu_cus * gpu_stat(j, "gpu.cycles"));
    assert_int_equal(gpu_stat(j, "breakdown.system"), trap + gpu_stat(j, "gpu.copies.system_cycles"));
    assert_true(gpu_stat(j, "breakdown.gpu_busy") > 0);
}

static void test_study1_breakdown(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.gpu_coherence = RP_GPU_NONCOHERENT;
    cJSON *j = gpu_replay_json(gpu_traces[0], &cfg); /* hotspot marks a region */
    check_breakdown(j, &cfg, true);
    const cJSON *roi = cJSON_GetObjectItemCaseSensitive(j, "roi");
    check_breakdown(roi, &cfg, false);
    assert_true(gpu_stat(roi, "breakdown.gpu_busy") < gpu_stat(j, "breakdown.gpu_busy"));
    cJSON_Delete(j);
}

/* Under vips-g the pages of each class are levels: the region of interest
 * shows how many pages are in each class at its end, so the classes add
 * up to every page there as over the whole run (a difference of levels
 * would not: a class that shrank in the region wrapped below zero), and
 * the region's transitions are some of the run's. backprop marks a region
 * in which pages go from private to shared. */
static void test_roi_page_classes(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    char err[256];
    assert_int_equal(rp_config_set(&cfg, "coherence.protocol=vips-g", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&cfg, "gpu.protocol=vips-g", err, sizeof err), 0);
    cJSON *j = gpu_replay_json(gpu_traces[1], &cfg);
    const cJSON *roi = cJSON_GetObjectItemCaseSensitive(j, "roi");
    assert_non_null(roi);
    static const char *const classes[] = { "unused", "private_cpu", "private_gpu", "shared" };
    double run = 0, region = 0, level[4];
    char path[64];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "self_invalidation.pages.%s", classes[k]);
        run += gpu_stat(j, path);
        region += level[k] = gpu_stat(roi, path);
    }
    assert_true(run > 0);
    assert_true(region == run);
    for (int k = 0; k < 4; k++)
        assert_true(level[k] <= run);
    double moved = gpu_stat(roi, "self_invalidation.pages.private_to_shared");
    assert_true(moved > 0 && moved <= gpu_stat(j, "self_invalidation.pages.private_to_shared"));
    cJSON_Delete(j);
}

/* A GPU access the memory system cannot place fails the replay with the
 * memory system's message naming the address. gpu_micro's stream_copy
 * stores 512 KiB the CPU never touched (its output buffer) in a 1 MiB
 * memory that the guest and the input nearly fill: in C-L3 the GPU shares
 * the CPU's pages, so its stores take the frames and the first one with
 * none left is named; the command line exits 1 with the same message
 * (the replay is deterministic: the same trace and keys name the same
 * address). */
static void test_address_error(void **state)
{
    (void)state;
    char trace[64];
    gpu_record(trace, "kernels/test", "gpu_micro stream_copy 131072 64");
    struct copies allocs = recorded_copies(trace);
    assert_int_equal(allocs.n, 2); /* in, then out */
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cfg.mem_size = 1u << 20;
    char err[600];
    struct rp_sim *s = rp_sim_create(&cfg, trace, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(rp_sim_run(s, false), -1);
    const char *at = strstr(s->error, "the GPU's memory: GPU address 0x");
    if (!at)
        print_error("%s\n", s->error);
    assert_non_null(at);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", at);
    rp_sim_destroy(s);
    uint64_t addr = strtoull(strchr(msg, 'x') + 1, NULL, 16);
    assert_true(addr >= allocs.addr[1] && addr - allocs.addr[1] < allocs.bytes[1]);

    const char *bin = getenv("CGM_BIN");
    char cmd[512], out[4096];
    snprintf(cmd, sizeof cmd, "%s/replay -q --set memory.size=1MiB %s 2>&1", bin, trace);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    at = strstr(out, "the GPU's memory: GPU address 0x");
    if (!at)
        print_error("%s\n", out);
    assert_non_null(at);
    assert_int_equal(strtoull(strchr(at, 'x') + 1, NULL, 16), addr);
    unlink(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_caches_in_statistics),
        cmocka_unit_test(test_workloads_complete_in_every_organisation),
        cmocka_unit_test(test_l1_keys_reach_the_caches),
        cmocka_unit_test(test_copies_per_organisation),
        cmocka_unit_test(test_study1_breakdown),
        cmocka_unit_test(test_roi_page_classes),
        cmocka_unit_test(test_address_error),
    };
    return cmocka_run_group_tests(tests, gpu_record_workloads, gpu_remove_workloads);
}
