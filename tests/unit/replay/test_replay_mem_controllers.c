/* The [memory] keys of several memory controllers: bad values are refused
 * with the key named, and a GPU workload replayed over two controllers
 * does the same work, its memory requests split over the controllers'
 * entries and adding up to the totals, controller 0's DRAM where one
 * controller's is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/gpu_recording.h"

/* Applying each assignment in turn, then the cross-key checks, fails
 * with a message naming KEY. */
static void expect_refused(const char *const *sets, const char *key)
{
    struct rp_config c;
    rp_config_defaults(&c);
    char err[512] = "";
    int rc = 0;
    for (; *sets && !rc; sets++)
        rc = rp_config_set(&c, *sets, err, sizeof err);
    if (!rc)
        rc = rp_config_check(&c, err, sizeof err);
    print_message("%s\n", err);
    assert_int_equal(rc, -1);
    if (!strstr(err, key))
        fail_msg("'%s' does not name %s", err, key);
}

static void test_bad_values_name_the_key(void **state)
{
    (void)state;
    expect_refused((const char *const[]){ "memory.controllers=0", NULL }, "memory.controllers");
    expect_refused((const char *const[]){ "memory.controllers=65", NULL }, "memory.controllers");
    expect_refused((const char *const[]){ "memory.controllers=2", "memory.interleave=96", NULL },
                   "memory.interleave");
    expect_refused((const char *const[]){ "memory.controllers=2", "memory.interleave=32", NULL },
                   "memory.interleave");
    expect_refused((const char *const[]){ "memory.interleave=block", NULL }, "memory.interleave");
    /* 4 runs of 128 MiB over 256 MiB: controllers 2 and 3 would own nothing */
    expect_refused((const char *const[]){ "memory.controllers=4", "memory.interleave=128MiB", NULL },
                   "memory.interleave");
    struct rp_config c;
    rp_config_defaults(&c);
    char err[512];
    assert_int_equal(c.mem_controllers, 1);
    assert_int_equal(c.mem_interleave, 64);
    static const char *const good[] = { "memory.controllers=4", "memory.interleave=64MiB" };
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(rp_config_set(&c, good[i], err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "memory.interleave=0", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
}

static const cJSON *member(const cJSON *j, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(j, name);
}

/* backprop's CPU and GPU both reach memory (C-L3: the GPU through the
 * L3). Over two controllers by page the kernels do the same work, both
 * controllers serve requests, their reads and writes add up to
 * memory_requests', and each one's DRAM did its requests. */
static void test_two_controllers_split_a_workload(void **state)
{
    (void)state;
    char trace[64];
    gpu_record(trace, "kernels", "backprop");
    struct rp_config one;
    rp_config_defaults(&one);
    cJSON *a = gpu_replay_json(trace, &one);
    assert_null(member(a, "memory_controllers"));
    struct rp_config two = one;
    char err[256];
    assert_int_equal(rp_config_set(&two, "memory.controllers=2", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&two, "memory.interleave=4KiB", err, sizeof err), 0);
    cJSON *b = gpu_replay_json(trace, &two);
    assert_true(gpu_stat(a, "gpu.kernels.0.work_groups") == gpu_stat(b, "gpu.kernels.0.work_groups"));
    const cJSON *mcs = member(b, "memory_controllers");
    assert_int_equal(cJSON_GetArraySize(mcs), 2);
    double reads = 0, writes = 0;
    for (int i = 0; i < 2; i++) {
        const cJSON *mc = cJSON_GetArrayItem(mcs, i);
        const cJSON *dram = i ? member(mc, "dram") : member(b, "dram");
        if (!i)
            assert_string_equal(member(mc, "dram_in")->valuestring, "dram");
        print_message("controller %d: %.0f reads, %.0f writes\n", i, gpu_stat(mc, "memory_reads"),
                      gpu_stat(mc, "memory_writes"));
        assert_true(gpu_stat(mc, "id") == i);
        assert_true(gpu_stat(mc, "memory_reads") > 0);
        assert_true(gpu_stat(mc, "memory_reads") == gpu_stat(dram, "reads"));
        assert_true(gpu_stat(mc, "memory_writes") == gpu_stat(dram, "writes"));
        reads += gpu_stat(mc, "memory_reads");
        writes += gpu_stat(mc, "memory_writes");
    }
    assert_true(reads == gpu_stat(b, "memory_requests.memory_reads"));
    assert_true(writes == gpu_stat(b, "memory_requests.memory_writes"));
    cJSON_Delete(a);
    cJSON_Delete(b);
    unlink(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_values_name_the_key),
        cmocka_unit_test(test_two_controllers_split_a_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
