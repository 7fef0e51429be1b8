/* replay configuration: the printed configuration reads back to the same
 * values; suffixes follow their definitions; unknown sections, unknown
 * keys and bad values are refused naming the file, line and key; --set
 * takes dotted sections; cross-key checks refuse impossible geometry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/config.h"
#include "tests/unit/temp_file.h"

static const char *write_temp(const char *text)
{
    return test_temp_file(text);
}

static void test_print_reads_back(void **state)
{
    (void)state;
    struct rp_config a, b;
    char err[512];
    rp_config_defaults(&a);
    /* Change a few keys of every type so the round trip is not trivial. */
    assert_int_equal(rp_config_set(&a, "cache.l1d.size=64KiB", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "cpu.frequency=3200MHz", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "cpu.predictor=bimodal", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "dram.preset=DDR4-2400", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&a, "memory.size=1536MiB", err, sizeof err), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rp_config_print(&a, f);
    fclose(f);
    const char *path = write_temp(text);
    /* Start b from values that differ everywhere we changed a. */
    rp_config_defaults(&b);
    int rc = rp_config_load(&b, path, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_memory_equal(&a, &b, sizeof a);
    unlink(path);
    free(text);
}

static void test_units(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    /* The seed's system (Sec. 3.4.1). */
    assert_int_equal(c.cores, 4);
    assert_int_equal(c.frequency, 4000000000ull);
    assert_int_equal(c.l1d.size, 32 * 1024);
    assert_int_equal(c.l2.size, 256 * 1024);
    assert_int_equal(c.l3.size, 2 * 1024 * 1024);
    assert_int_equal(c.l1d.block, 64);
    assert_int_equal(rp_config_set(&c, "cache.l3.size=3MiB", err, sizeof err), 0);
    assert_int_equal(c.l3.size, 3ull << 20);
    assert_int_equal(rp_config_set(&c, "cache.l1i.size=16384", err, sizeof err), 0);
    assert_int_equal(c.l1i.size, 16384);
    assert_int_equal(rp_config_set(&c, "network.frequency=1500MHz", err, sizeof err), 0);
    assert_int_equal(c.net_frequency, 1500000000ull);
    assert_int_equal(rp_config_set(&c, "cpu.frequency=2GHz", err, sizeof err), 0);
    assert_int_equal(c.frequency, 2000000000ull);
}

static void expect_load_error(const char *ini, int line, const char *key)
{
    struct rp_config c;
    char err[512] = "";
    rp_config_defaults(&c);
    const char *path = write_temp(ini);
    assert_int_equal(rp_config_load(&c, path, err, sizeof err), -1);
    char where[96];
    snprintf(where, sizeof where, "%s:%d:", path, line);
    if (!strstr(err, where) || !strstr(err, key))
        print_error("message \"%s\" lacks \"%s\" or \"%s\"\n", err, where, key);
    assert_non_null(strstr(err, where));
    assert_non_null(strstr(err, key));
    unlink(path);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_load_error("[cpu]\ncores = 2\nwidth = 4\n", 3, "width");
    expect_load_error("[cpu]\n\n[cache.l9]\nsize = 1KiB\n", 4, "cache.l9");
    expect_load_error("[cache.l1d]\nsize = 32 KB\n", 2, "size");      /* KB is not a suffix we take */
    expect_load_error("[cache.l1d]\nways = -1\n", 2, "ways");
    expect_load_error("[cpu]\ncores = 65\n", 2, "cores");               /* out of range */
    expect_load_error("[cpu]\npredictor = perceptron\n", 2, "predictor");
    expect_load_error("[dram]\npreset = DDR9\n", 2, "preset");
    expect_load_error("[cpu]\ncores 4\n", 2, "malformed");
    expect_load_error("[cache.l1d]\nblock = 128\n", 2, "block");         /* 64-byte blocks only */
    /* Two errors: the first one's line and message (not the last one's message). */
    expect_load_error("[cpu]\ncores = 65\n[nope]\nx = 1\n", 2, "cores");
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_load(&c, "/nonexistent/replay.ini", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/replay.ini"));
}

static void test_set_and_checks(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "cache.l1d", err, sizeof err), -1);
    assert_int_equal(rp_config_set(&c, "cores=4", err, sizeof err), -1);
    assert_int_equal(rp_config_set(&c, "cpu.nothing=4", err, sizeof err), -1);
    assert_non_null(strstr(err, "nothing"));
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    /* 48 KiB with 8 ways of 64 bytes is 96 sets: not a power of two. */
    assert_int_equal(rp_config_set(&c, "cache.l1d.size=48KiB", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "cache.l1d.size"));
    /* 48 KiB with 12 ways is 64 sets: fine. */
    assert_int_equal(rp_config_set(&c, "cache.l1d.ways=12", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "cache.l3.slices=3", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "slices"));
    assert_int_equal(rp_config_set(&c, "cache.l3.slices=4", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.l2.banks=3", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.l2.banks"));
}

/* The GPU memory keys the seed's studies set (traces/studies), by these
 * names; a bad organisation names the choices. */
static void test_gpu_memory_keys(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "gpu.coherence=noncoherent", err, sizeof err), 0);
    assert_int_equal(c.gpu_coherence, RP_GPU_NONCOHERENT);
    assert_int_equal(rp_config_set(&c, "gpu.connection=mc", err, sizeof err), 0);
    assert_int_equal(c.gpu_connection, RP_GPU_TO_MC);
    assert_int_equal(rp_config_set(&c, "gpu.l1.coalescer=96", err, sizeof err), 0);
    assert_int_equal(c.gpu_l1.coalescer, 96);
    assert_int_equal(rp_config_set(&c, "gpu.link_bytes=288", err, sizeof err), 0);
    assert_int_equal(c.gpu_link_bytes, 288);
    assert_int_equal(rp_config_set(&c, "gpu.memory=ideal", err, sizeof err), 0);
    assert_int_equal(c.gpu_memory, RP_GPU_MEM_IDEAL);
    assert_int_equal(rp_config_set(&c, "gpu.connection=hub", err, sizeof err), -1);
    assert_non_null(strstr(err, "mc, l3"));
    /* 24 KiB of 4 ways of 64 bytes is 96 sets */
    assert_int_equal(rp_config_set(&c, "gpu.l2.size=24KiB", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.l2.size"));
}

/* A sweep reads and writes [dram]'s whole-number keys as it does every
 * other number (the ranges are the DRAM table's own), and refuses a
 * number for the keys that take names or fractions. */
static void test_dram_numbers_for_sweeps(void **state)
{
    (void)state;
    char err[512], text[64];
    uint64_t v = 0;
    assert_int_equal(rp_config_number("dram", "write_queue_size", "48", &v, "s.ini", 3, err, sizeof err), 0);
    assert_int_equal(v, 48);
    assert_int_equal(rp_config_format("dram", "write_queue_size", 48, text, sizeof text), 0);
    assert_string_equal(text, "48");
    assert_int_equal(rp_config_number("dram", "channels", "65", &v, "s.ini", 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "s.ini:4"));
    assert_non_null(strstr(err, "out of range"));
    assert_int_equal(rp_config_number("dram", "page_policy", "1", &v, "s.ini", 5, err, sizeof err), -1);
    assert_non_null(strstr(err, "page_policy"));
    assert_int_equal(rp_config_format("dram", "preset", 0, text, sizeof text), -1);
    assert_int_equal(rp_config_format("dram", "tCK_ns", 1, text, sizeof text), -1);
    /* What the number names reaches the model. */
    struct rp_config c;
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "dram.write_high=20", err, sizeof err), 0);
    assert_int_equal(c.dram.write_high, 20);
}

static void test_shipped_configs(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT");
    static const char *const names[] = { "seed", "small", "large" };
    for (int i = 0; i < 3; i++) {
        char path[512], err[512];
        snprintf(path, sizeof path, "%s/traces/configs/%s.ini", root ? root : ".", names[i]);
        struct rp_config c, d;
        rp_config_defaults(&c);
        int rc = rp_config_load(&c, path, err, sizeof err);
        if (rc)
            print_error("%s\n", err);
        assert_int_equal(rc, 0);
        assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
        rp_config_defaults(&d);
        /* seed.ini writes out the defaults. */
        if (i == 0)
            assert_memory_equal(&c, &d, sizeof c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print_reads_back),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_set_and_checks),
        cmocka_unit_test(test_gpu_memory_keys),
        cmocka_unit_test(test_dram_numbers_for_sweeps),
        cmocka_unit_test(test_shipped_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
