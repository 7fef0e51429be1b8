/* Replaying the GPU workloads (traces/gpu): every one completes with every
 * recorded wavefront instruction issued, kernels one after another, the
 * host waiting where it waited; statistics repeat exactly; with the memory
 * system held fixed, more compute units are never slower by more than 2%
 * (or than their L1s' extra misses); one compute unit takes the sum of
 * its work-groups' times; a trace without the kernels' descriptions or the
 * driver's mappings (recorded before they existed) still replays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/sirec.h"
#include "tests/unit/gpu_recording.h"
#include "tests/unit/replay_run.h"

static size_t array_size(const cJSON *j, const char *key)
{
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(j, "gpu");
    return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(gpu, key));
}

static void test_workloads_complete(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    for (size_t i = 0; i < GPU_NWORK; i++) {
        cJSON *j = gpu_replay_stats(gpu_traces[i], &cfg);
        assert_int_equal(gpu_stat(j, "gpu.wavefront_instructions"), gpu_recorded_instructions(gpu_traces[i]));
        double issued = 0, prev_end = 0;
        char k[96];
        for (unsigned c = 0; c < cfg.gpu_cus; c++) {
            snprintf(k, sizeof k, "gpu.compute_units.%u.wavefront_instructions", c);
            issued += gpu_stat(j, k);
        }
        assert_int_equal(issued, gpu_stat(j, "gpu.wavefront_instructions"));
        size_t n = array_size(j, "kernels");
        assert_true(n > 0);
        for (size_t x = 0; x < n; x++) {
            snprintf(k, sizeof k, "gpu.kernels.%zu.start", x);
            double start = gpu_stat(j, k);
            snprintf(k, sizeof k, "gpu.kernels.%zu.end", x);
            double end = gpu_stat(j, k);
            assert_true(start >= prev_end); /* one after another */
            assert_true(end > start);
            prev_end = end;
        }
        /* The host waited for the last kernel: the run (CPU cycles) lasts
         * past its end (GPU cycles). */
        assert_true(gpu_stat(j, "cycles") / (double)cfg.frequency >= prev_end / (double)cfg.gpu_frequency);
        cJSON_Delete(j);
    }
}

static void test_statistics_repeat(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    for (size_t i = 7; i < 9; i++) {
        cJSON *a = gpu_replay_stats(gpu_traces[i], &cfg), *b = gpu_replay_stats(gpu_traces[i], &cfg);
        char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
        assert_string_equal(ta, tb);
        free(ta);
        free(tb);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

static double l1_misses(const cJSON *j)
{
    double n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "caches"))
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "gpu_l1v"))
            n += cJSON_GetObjectItemCaseSensitive(c, "misses")->valuedouble;
    return n;
}

/* On the memory hierarchy as configured by default (one L2 bank per four
 * compute units, page walks timed), the compute units doubling from 1 to
 * 16: more compute units are never slower by more than 2%, or than the
 * vector L1s' extra misses: work-groups that share data and no longer
 * share an L1 miss more (nw's wavefront of dependent blocks: 2.4 times the
 * misses and 13% slower on 2 compute units than on 1). Each compute unit's
 * TLB misses on every page it touches first, so more units make more
 * misses; the IOMMU's walkers serve them at once, one walk per page. */
static void test_more_compute_units_never_slower(void **state)
{
    (void)state;
    for (size_t i = 0; i < 6; i++) {
        double prev = 0, prev_misses = 0;
        for (unsigned cus = 1; cus <= 16; cus *= 2) {
            struct rp_config cfg;
            rp_config_defaults(&cfg);
            cfg.gpu_cus = cus;
            cJSON *j = gpu_replay_stats(gpu_traces[i], &cfg);
            double t = gpu_kernel_cycles(j), misses = l1_misses(j);
            double bound = prev_misses && misses / prev_misses > 1.02 ? misses / prev_misses : 1.02;
            if (prev && t > bound * prev)
                print_error("%s: %u compute units take %.0f cycles (%.0f L1 misses), half as many %.0f (%.0f)\n",
                            gpu_workloads[i], cus, t, misses, prev, prev_misses);
            assert_true(!prev || t <= bound * prev);
            prev = t;
            prev_misses = misses;
            cJSON_Delete(j);
        }
    }
}

static double sum_over_cus(const cJSON *j, unsigned cus, const char *stat)
{
    double n = 0;
    char k[96];
    for (unsigned c = 0; c < cus; c++) {
        snprintf(k, sizeof k, "gpu.compute_units.%u.%s", c, stat);
        n += gpu_stat(j, k);
    }
    return n;
}

/* One compute unit holding one work-group at a time takes, per kernel, the
 * sum of what its work-groups take alone, each on a compute unit of its
 * own (a memory with bandwidth to spare keeps them apart), within the turn
 * of the pools at each work-group's start. On the memory hierarchy no
 * replay runs a work-group alone (on 64 compute units they share the L2
 * and the hub, each with a cold L1 and TLB; on one, each finds the last
 * one's blocks in the L1), so there the kernels take the sum of their
 * work-groups' own times on that one unit: nothing but the dispatch turn
 * comes between two work-groups. */
static void test_one_compute_unit_is_the_sum_of_its_work_groups(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        struct rp_config cfg;
        rp_config_defaults(&cfg);
        cfg.cu.max_work_groups = 1;
        cfg.gpu_cus = 1;
        cJSON *hier = gpu_replay_stats(gpu_traces[i], &cfg);
        double serial = gpu_kernel_cycles(hier), own = sum_over_cus(hier, 1, "work_group_cycles");
        double slack = sum_over_cus(hier, 1, "work_groups") * (double)(cfg.cu.simds + 1);
        if (serial < own - slack || serial > own + slack)
            print_error("%s (hierarchy): one compute unit %.0f cycles, its work-groups %.0f\n", gpu_workloads[i],
                        serial, own);
        assert_true(serial >= own - slack && serial <= own + slack);
        cJSON_Delete(hier);

        cfg.gpu_memory = RP_GPU_MEM_IDEAL;
        cfg.ideal_bytes_per_cycle = 65536;
        cJSON *one = gpu_replay_stats(gpu_traces[i], &cfg);
        cfg.gpu_cus = 64;
        cJSON *many = gpu_replay_stats(gpu_traces[i], &cfg);
        double alone = sum_over_cus(many, cfg.gpu_cus, "work_group_cycles");
        double groups = sum_over_cus(many, cfg.gpu_cus, "work_groups");
        serial = gpu_kernel_cycles(one);
        slack = groups * (double)(cfg.cu.simds + 1);
        if (serial < alone - slack || serial > alone + slack)
            print_error("%s: one compute unit %.0f cycles, its %.0f work-groups alone %.0f\n", gpu_workloads[i], serial,
                        groups, alone);
        assert_true(serial >= alone - slack && serial <= alone + slack);
        cJSON_Delete(one);
        cJSON_Delete(many);
    }
}

/* hotspot's region of interest holds its last three kernels. */
static void test_region_of_interest(void **state)
{
    (void)state;
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    struct rp_sim *s = replay_run_checked(gpu_traces[0], &cfg);
    assert_int_equal(s->regions.count, 1);
    char *txt = NULL;
    FILE *f = open_memstream(&txt, &(size_t){ 0 });
    assert_int_equal(rp_stats_write(s, f, NULL, false), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(txt);
    free(txt);
    const cJSON *roi = cJSON_GetObjectItemCaseSensitive(j, "roi");
    assert_int_equal(array_size(j, "kernels"), 4);
    /* every kernel is listed; those before the region ran no cycles in it */
    assert_int_equal(array_size(roi, "kernels"), 4);
    char k[64];
    for (int i = 0; i < 4; i++) {
        snprintf(k, sizeof k, "gpu.kernels.%d.cycles", i);
        if (i == 0)
            assert_int_equal(gpu_stat(roi, k), 0);
        else
            assert_int_equal(gpu_stat(roi, k), gpu_stat(j, k));
    }
    double all = gpu_stat(j, "gpu.wavefront_instructions"), part = gpu_stat(roi, "gpu.wavefront_instructions");
    assert_true(part > 0.7 * all && part < 0.8 * all); /* three of four equal kernels */
    cJSON_Delete(j);
    rp_sim_destroy(s);
}

/* Copies TRACE leaving out what older recordings lack: the si.kernel
 * sections and the gpu_map events. */
static void strip_new_records(const char *from, const char *to)
{
    char err[256];
    struct cgm_reader *r = cgm_reader_open(from, err, sizeof err);
    struct cgm_writer *w = cgm_writer_create(to, NULL, err, sizeof err);
    assert_non_null(r);
    assert_non_null(w);
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++) {
        const struct cgm_reader_stream *rs = cgm_reader_stream(r, i);
        if (rs->info.kind == CGM_STREAM_SECTION && !strncmp(rs->info.name, CGM_SI_KERNEL_PREFIX, 10))
            continue;
        struct cgm_wstream *ws = cgm_writer_open_stream(w, &rs->info);
        struct cgm_riter *it = cgm_riter_open(r, i);
        assert_non_null(ws);
        const uint8_t *rec;
        size_t len;
        while (cgm_riter_next(it, &rec, &len) == 1)
            if (rec[0] != CGM_EV_GPU_MAP || rs->info.kind != CGM_STREAM_X86_THREAD)
                assert_int_equal(cgm_wstream_append(ws, rec, len, rec[0] >= 0x40 && rec[0] < 0x80 ? 1 : 0), 0);
        cgm_riter_close(it);
    }
    assert_int_equal(cgm_writer_finalize(w, err, sizeof err), 0);
    cgm_reader_close(r);
}

static void test_traces_without_kernel_descriptions(void **state)
{
    (void)state;
    char old[] = "/tmp/cgm_gpu_old_XXXXXX";
    int fd = mkstemp(old);
    assert_true(fd >= 0);
    close(fd);
    strip_new_records(gpu_traces[1], old);
    struct rp_config cfg;
    rp_config_defaults(&cfg);
    cJSON *now = gpu_replay_stats(gpu_traces[1], &cfg), *then = gpu_replay_stats(old, &cfg);
    assert_int_equal(gpu_stat(then, "gpu.wavefront_instructions"), gpu_stat(now, "gpu.wavefront_instructions"));
    assert_int_equal(gpu_stat(then, "gpu.driver_memory.pages"), 0);
    assert_true(gpu_stat(now, "gpu.driver_memory.pages") > 0);
    const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(then, "gpu"),
                                                                         "kernels"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(k, "name")->valuestring, "kernel1");
    cJSON_Delete(now);
    cJSON_Delete(then);
    unlink(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workloads_complete),
        cmocka_unit_test(test_statistics_repeat),
        cmocka_unit_test(test_more_compute_units_never_slower),
        cmocka_unit_test(test_one_compute_unit_is_the_sum_of_its_work_groups),
        cmocka_unit_test(test_region_of_interest),
        cmocka_unit_test(test_traces_without_kernel_descriptions),
    };
    return cmocka_run_group_tests(tests, gpu_record_workloads, gpu_remove_workloads);
}
