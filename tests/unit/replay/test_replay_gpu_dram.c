/* [gpu.dram], a discrete GPU's own memory, in replay (copy_touch: the CPU
 * writes IN, the GPU reads IN and writes OUT, the CPU reads some of OUT):
 *   - discrete: every GPU L2 miss and write-back reaches gpu.dram (GDDR5 by
 *     default), the host's dram only the CPU's; the same run integrated
 *     registers no gpu.dram, and its host DRAM serves the GPU's misses too;
 *   - [gpu.dram] takes every [dram] key (one table): another preset, a key
 *     of its own; errors name gpu.dram;
 *   - dram.preset = GDDR5 replays with the default clocks;
 *   - gpu.l2.memory_controllers is refused with a discrete GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/config.h"
#include "tests/unit/gpu_recording.h"

static char trace[64];

static int record(void **state)
{
    (void)state;
    gpu_record(trace, "kernels", "copy_touch 16384 256");
    return 0;
}

static int drop(void **state)
{
    (void)state;
    unlink(trace);
    return 0;
}

static void configure(struct rp_config *c, bool discrete)
{
    char err[512];
    rp_config_defaults(c);
    assert_int_equal(rp_config_set(c, "gpu.coherence=noncoherent", err, sizeof err), 0);
    if (discrete)
        assert_int_equal(rp_config_set(c, "gpu.attach=discrete", err, sizeof err), 0);
    assert_int_equal(rp_config_check(c, err, sizeof err), 0);
}

static const char *label(const cJSON *j, const char *a, const char *b, const char *c)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                                                          cJSON_GetObjectItemCaseSensitive(j, a), b), c);
    return cJSON_IsString(o) ? o->valuestring : NULL;
}

static void misses_reach_the_gpus_own_dram(void **state)
{
    (void)state;
    struct rp_config c;
    configure(&c, true);
    cJSON *d = gpu_replay_stats(trace, &c);
    configure(&c, false);
    cJSON *i = gpu_replay_stats(trace, &c);
    assert_string_equal(label(d, "gpu", "dram", "preset"), "GDDR5");
    double misses = gpu_stat(d, "gpu.l2_misses");
    assert_true(misses > 0);
    /* every miss a read of the GPU's DRAM; its write-backs its writes */
    assert_true(gpu_stat(d, "gpu.dram.reads") == misses);
    double written = 0;
    const cJSON *k, *caches = cJSON_GetObjectItemCaseSensitive(d, "caches");
    cJSON_ArrayForEach(k, caches) {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(k, "kind");
        if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "gpu_l2"))
            written += cJSON_GetObjectItemCaseSensitive(k, "writebacks")->valuedouble;
    }
    assert_true(gpu_stat(d, "gpu.dram.writes") == written);
    /* integrated, the same misses are the host DRAM's: discrete leaves it the CPU's */
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(i, "gpu"), "dram"));
    assert_true(gpu_stat(i, "gpu.l2_misses") == misses);
    assert_true(gpu_stat(i, "dram.reads") >= gpu_stat(d, "dram.reads") + misses);
    cJSON_Delete(d);
    cJSON_Delete(i);
}

static void gpu_dram_takes_the_dram_keys(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    configure(&c, true);
    assert_int_equal(rp_config_set(&c, "gpu.dram.preset=DDR4-2400", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.dram.channels=4", err, sizeof err), 0);
    assert_int_equal(c.gpu_dram.channels, 4);
    assert_int_equal(c.dram.channels, 2); /* the host's stays */
    assert_string_equal(c.dram.preset, "DDR3-1600");
    cJSON *d = gpu_replay_stats(trace, &c);
    assert_string_equal(label(d, "gpu", "dram", "preset"), "DDR4-2400");
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "dram"), "preset");
    assert_true(cJSON_IsString(host));
    assert_string_equal(host->valuestring, "DDR3-1600");
    assert_true(gpu_stat(d, "gpu.dram.reads") > 0);
    cJSON_Delete(d);
    assert_int_equal(rp_config_set(&c, "gpu.dram.tRCDX=3", err, sizeof err), -1);
    assert_non_null(strstr(err, "[gpu.dram]"));
    assert_int_equal(rp_config_set(&c, "gpu.dram.preset=DDR9", err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.dram.preset"));
    assert_int_equal(rp_config_set(&c, "gpu.dram.CL=eleven", err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.dram.CL"));
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.dram.channels=3", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "[gpu.dram]"));
}

static void gddr5_host_memory_replays(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    configure(&c, false);
    assert_int_equal(rp_config_set(&c, "dram.preset=GDDR5", err, sizeof err), 0);
    cJSON *j = gpu_replay_stats(trace, &c);
    assert_true(gpu_stat(j, "dram.tck_ns") * 1.5 > 0.999999 && gpu_stat(j, "dram.tck_ns") * 1.5 < 1.000001);
    assert_true(gpu_stat(j, "dram.reads") > 0);
    cJSON_Delete(j);
}

static void per_bank_controllers_are_refused(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    configure(&c, true);
    assert_int_equal(rp_config_set(&c, "gpu.connection=mc", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.l2.memory_controllers=2", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.l2.memory_controllers"));
    assert_non_null(strstr(err, "gpu.dram"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(misses_reach_the_gpus_own_dram),
        cmocka_unit_test(gpu_dram_takes_the_dram_keys),
        cmocka_unit_test(gddr5_host_memory_replays),
        cmocka_unit_test(per_bank_controllers_are_refused),
    };
    return cmocka_run_group_tests(tests, record, drop);
}
