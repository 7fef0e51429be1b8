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

#include "cgm/coh.h"
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
    expect_load_error("[cache.l1d]\nsize = 32 KiBs\n", 2, "size");    /* not a suffix */
    expect_load_error("[cache.l1d]\nsize = 32 kilobytes\n", 2, "size");
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

/* What a user writes: a fraction when the value comes out whole (1.5 x
 * 10^9 Hz, 0.5 x 2^20 bytes), KB/kB/MB/GB as the powers of 1024 KiB and
 * MiB are; not a fraction of a count, a fraction beyond a whole unit or
 * a malformed number. */
static void test_fractions_and_kb(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "cpu.frequency=1.5GHz", err, sizeof err), 0);
    assert_int_equal(c.frequency, 1500000000ull);
    assert_int_equal(rp_config_set(&c, "gpu.frequency=0.8GHz", err, sizeof err), 0);
    assert_int_equal(c.gpu_frequency, 800000000ull);
    assert_int_equal(rp_config_set(&c, "network.frequency=2.25 GHz", err, sizeof err), 0);
    assert_int_equal(c.net_frequency, 2250000000ull);
    assert_int_equal(rp_config_set(&c, "cache.l2.size=0.5MiB", err, sizeof err), 0);
    assert_int_equal(c.l2.size, 512 * 1024);
    assert_int_equal(rp_config_set(&c, "cache.l3.size=1.25MiB", err, sizeof err), 0);
    assert_int_equal(c.l3.size, 1280 * 1024);
    assert_int_equal(rp_config_set(&c, "cpu.cores=2.0", err, sizeof err), 0);
    assert_int_equal(c.cores, 2);
    static const char *const kib16[] = { "16KB", "16kB", "16kb", "16 KB", "16KiB", "16K" };
    for (size_t i = 0; i < sizeof kib16 / sizeof *kib16; i++) {
        char set[64];
        snprintf(set, sizeof set, "cache.l1d.size=%s", kib16[i]);
        c.l1d.size = 0;
        assert_int_equal(rp_config_set(&c, set, err, sizeof err), 0);
        assert_int_equal(c.l1d.size, 16384);
    }
    assert_int_equal(rp_config_set(&c, "memory.size=1GB", err, sizeof err), 0);
    assert_int_equal(c.mem_size, 1ull << 30);
    static const char *const bad[] = {
        "cpu.cores=1.5",                  /* half a core */
        "cpu.frequency=1.0000000001GHz",  /* ten digits of fraction: beyond a hertz */
        "cache.l1d.size=1.0001KiB",       /* 1024.1024 bytes */
        "cpu.frequency=1.GHz", "cpu.frequency=.5GHz", "cpu.frequency=1.5.2GHz", "cache.l1d.size=16Kb B",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(rp_config_set(&c, bad[i], err, sizeof err), -1);
        assert_non_null(strstr(err, "is not a valid value"));
    }
}

/* An unknown key or section says which known one is nearest, when one is
 * near; nothing is suggested for a name like none of them. */
static void test_did_you_mean(void **state)
{
    (void)state;
    expect_load_error("[gpu]\ncompute_unit = 4\n", 2, "unknown key compute_unit in [gpu] (did you mean compute_units?)");
    expect_load_error("[cpu]\n\nfequency = 1GHz\n", 3, "(did you mean frequency?)");
    expect_load_error("[cache.l2x]\nsize = 16KiB\n", 2, "unknown section [cache.l2x] (key size) (did you mean cache.l2.size?)");
    expect_load_error("[gpu.cus]\nsimd = 2\n", 2, "(did you mean gpu.cu.simds?)");
    expect_load_error("[gpu.cus]\nzzz = 2\n", 2, "(did you mean [gpu.cu]?)");
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "cpu.zzzzzz=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown key zzzzzz in [cpu]"));
    assert_null(strstr(err, "did you mean"));
    assert_int_equal(rp_config_set(&c, "gpu.bandwidth=1", err, sizeof err), -1);
    assert_null(strstr(err, "did you mean"));
}

/* The compute unit's way of making requests is gpu.cu.coalescing, the L1's
 * coalescer gpu.l1.coalescer; the earlier gpu.cu.coalescer still sets the
 * former, is printed under its name, and counts as it for "given twice". */
static void test_coalescer_names(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(c.cu.coalescer, RP_COALESCE_INSTRUCTION);
    assert_int_equal(rp_config_set(&c, "gpu.cu.coalescer=l1-mshr", err, sizeof err), 0);
    assert_int_equal(c.cu.coalescer, RP_COALESCE_L1_MSHR);
    assert_int_equal(rp_config_set(&c, "gpu.cu.coalescing=per-instruction", err, sizeof err), 0);
    assert_int_equal(c.cu.coalescer, RP_COALESCE_INSTRUCTION);
    assert_int_equal(rp_config_set(&c, "gpu.l1.coalescer=96", err, sizeof err), 0);
    assert_int_equal(c.gpu_l1.coalescer, 96);
    assert_int_equal(rp_config_set(&c, "gpu.cu.coalescing=l1-mshr", err, sizeof err), 0);
    assert_string_equal(rp_config_key_name("gpu.cu", "coalescer"), "coalescing");
    assert_string_equal(rp_config_key_name("gpu.l1", "coalescer"), "coalescer");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rp_config_print(&c, f);
    fclose(f);
    assert_non_null(strstr(text, "\ncoalescing = l1-mshr\n"));
    assert_non_null(strstr(text, "[gpu.l1]"));
    assert_null(strstr(text, "\ncoalescer = l1-mshr"));
    free(text);
    expect_load_error("[gpu.cu]\ncoalescer = l1-mshr\ncoalescing = per-instruction\n", 3, "given twice");
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
/* A protocol without a directory (vips-g, its name with a hyphen) runs
 * every cache: named by one key alone it is refused, as without the GPU
 * on the L3. */
static void test_self_invalidating_protocol_keys(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "coherence.protocol=vips-g", err, sizeof err), 0);
    assert_true(cgm_coh_protocols[c.coherence_protocol]->self_invalidating);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "coherence.protocol: vips-g keeps no directory"));
    assert_int_equal(rp_config_set(&c, "gpu.protocol=vips-g", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.connection=mc", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.connection: vips-g"));
    assert_int_equal(rp_config_set(&c, "coherence.protocol=mesi", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.protocol: vips-g keeps no directory"));
    assert_non_null(strstr(cgm_coh_protocol_list(), "vips-g"));
}

/* vi-hammer keeps a directory (MOESI's): it runs with either key alone
 * (the other side's caches run mesi) and without the GPU on the L3. */
static void test_vi_hammer_protocol_keys(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_int_equal(rp_config_set(&c, "coherence.protocol=vi-hammer", err, sizeof err), 0);
    assert_false(cgm_coh_protocols[c.coherence_protocol]->self_invalidating);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.protocol=vi-hammer", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.connection=mc", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_string_equal(cgm_coh_protocols[c.gpu_protocol]->name, "vi-hammer");
    assert_non_null(strstr(cgm_coh_protocol_list(), "vi-hammer"));
}

/* coherence.protocol and gpu.protocol name a registered protocol (mesi by
 * default); a bad name is refused with its line, the valid names and the
 * nearest; both are printed and read back. */
static void test_protocol_keys(void **state)
{
    (void)state;
    struct rp_config c;
    char err[512];
    rp_config_defaults(&c);
    assert_string_equal(cgm_coh_protocols[c.coherence_protocol]->name, "mesi");
    assert_string_equal(cgm_coh_protocols[c.gpu_protocol]->name, "mesi");
    assert_int_equal(rp_config_set(&c, "coherence.protocol=mesi", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.protocol=mesi", err, sizeof err), 0);
    expect_load_error("[cpu]\ncores = 2\n[coherence]\nprotocol = mesy\n", 4,
                      "coherence.protocol: 'mesy' is not one of mesi");
    expect_load_error("[coherence]\nprotocol = mesy\n", 2, "(did you mean mesi?)");
    expect_load_error("[gpu]\nprotocol = directory\n", 2, "gpu.protocol: 'directory' is not one of");
    assert_int_equal(rp_config_set(&c, "gpu.protocol=zzzz", err, sizeof err), -1);
    assert_non_null(strstr(err, cgm_coh_protocol_list()));
    assert_null(strstr(err, "did you mean"));
    /* moesi is the cores' and slices' only */
    assert_int_equal(rp_config_set(&c, "coherence.protocol=moesi", err, sizeof err), 0);
    assert_string_equal(cgm_coh_protocols[c.coherence_protocol]->name, "moesi");
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.protocol=moesi", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.protocol: moesi has no controllers for the GPU's caches"));
    /* si is the GPU's only */
    assert_int_equal(rp_config_set(&c, "gpu.protocol=si", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "coherence.protocol=si", err, sizeof err), 0);
    assert_int_equal(rp_config_check(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "coherence.protocol: si has no controllers for the cores' caches"));
    assert_int_equal(rp_config_set(&c, "coherence.protocol=moesi", err, sizeof err), 0);
    assert_int_equal(rp_config_set(&c, "gpu.protocol=mesi", err, sizeof err), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rp_config_print(&c, f);
    fclose(f);
    assert_non_null(strstr(text, "\n[coherence]\n"));
    assert_non_null(strstr(strstr(text, "\n[coherence]\n"), "\nprotocol = moesi\n"));
    const char *gpu = strstr(text, "\n[gpu]\n");
    assert_non_null(gpu);
    assert_non_null(strstr(gpu, "\nprotocol = mesi\n"));
    free(text);
}

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

/* Seed 001's GPUs, each as its table says: compute units, L2 banks x
 * size and ways, memory controllers per bank and channels, clock. */
static void test_seed001_gpu_configs(void **state)
{
    (void)state;
    const char *root = getenv("CGM_ROOT");
    static const struct {
        const char *name, *table;
        uint64_t cus, banks, l2_bytes, l2_ways, mcs, channels, hz;
    } gpus[] = {
        { "hd7770", "Table 2.1", 10, 2, 128 << 10, 16, 1, 2, 1000000000 },
        { "hd7870", "Table 4.2", 10, 2, 128 << 10, 16, 2, 1, 1000000000 },
        { "rx540", "Sec. 6.6", 8, 2, 256 << 10, 32, 1, 1, 1200000000 },
        { "rx570", "Sec. 6.6", 32, 8, 256 << 10, 32, 1, 1, 1200000000 },
    };
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        char path[512], err[512];
        snprintf(path, sizeof path, "%s/traces/configs/%s.ini", root ? root : ".", gpus[i].name);
        struct rp_config c;
        rp_config_defaults(&c);
        int rc = rp_config_load(&c, path, err, sizeof err);
        if (rc)
            print_error("%s\n", err);
        assert_int_equal(rc, 0);
        assert_int_equal(rp_config_check(&c, err, sizeof err), 0);
        /* the file names its source */
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char text[4096];
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
        assert_non_null(strstr(text, gpus[i].table));
        assert_int_equal(c.gpu_cus, gpus[i].cus);
        assert_int_equal(c.gpu_l2_banks, gpus[i].banks);
        assert_int_equal(c.gpu_l2.size, gpus[i].l2_bytes);
        assert_int_equal(c.gpu_l2.ways, gpus[i].l2_ways);
        assert_int_equal(c.gpu_l2.latency, 10); /* every one: 10 cycles */
        assert_int_equal(c.gpu_l2_mcs, gpus[i].mcs);
        assert_int_equal(c.dram.channels, gpus[i].channels);
        assert_int_equal(c.gpu_frequency, gpus[i].hz);
        assert_int_equal(c.gpu_connection, RP_GPU_TO_MC);
        assert_int_equal(c.gpu_l2_interleave, 256);
        assert_int_equal(c.cu.vmem_buffer, 32);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print_reads_back),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_set_and_checks),
        cmocka_unit_test(test_fractions_and_kb),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_coalescer_names),
        cmocka_unit_test(test_seed001_gpu_configs),
        cmocka_unit_test(test_gpu_memory_keys),
        cmocka_unit_test(test_protocol_keys),
        cmocka_unit_test(test_self_invalidating_protocol_keys),
        cmocka_unit_test(test_vi_hammer_protocol_keys),
        cmocka_unit_test(test_dram_numbers_for_sweeps),
        cmocka_unit_test(test_shipped_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
