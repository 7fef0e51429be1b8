/* What the code-object loader refuses, on real code objects built by
 * Debian's clang (the Makefile's "GPU kernels" block): micro.cl for other
 * GPUs, kernels using features the device lacks (tests/data/si/refused/),
 * and what it accepts: the other Southern Islands chips and a relocation it
 * applies.  The targets' names and the relocations come from readelf, not
 * from the loader; the refusal also reaches a guest through cgm_gpu_load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/si/si_emu.h"
#include "tests/unit/run_program.h"
#include "tests/unit/si_harness.h"

static const char *build_dir(void)
{
    const char *b = getenv("CGM_BUILD");
    return b ? b : "build";
}

static void co_path(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/kernels/%s.co", build_dir(), rel);
}

/* stdout of readelf ARG PATH. */
static char *readelf(const char *arg, const char *path)
{
    char *argv[] = { "/usr/bin/readelf", (char *)arg, (char *)path, NULL };
    struct run_result *r = run_program(argv, NULL);
    assert_non_null(r);
    assert_int_equal(r->status, 0);
    char *out = strdup(r->out);
    run_result_free(r);
    return out;
}

/* readelf -h's name of the file's GPU: "Flags: 0x12c, gfx900, xnack any". */
static void readelf_gpu(const char *path, char *gpu, size_t n)
{
    char *h = readelf("-h", path);
    const char *f = strstr(h, "Flags:");
    assert_non_null(f);
    const char *name = strstr(f, ", ");
    assert_non_null(name);
    name += 2;
    size_t len = strcspn(name, ",\n ");
    assert_true(len > 0 && len < n);
    memcpy(gpu, name, len);
    gpu[len] = '\0';
    free(h);
}

static void refused_with(const char *rel, const char *const *needles)
{
    char path[1024], err[1024] = "";
    co_path(path, sizeof path, rel);
    struct si_program p;
    if (si_program_load(path, &p, err, sizeof err) == 0)
        fail_msg("%s loaded", path);
    if (strncmp(err, path, strlen(path)) != 0)
        fail_msg("\"%s\" does not begin with the file's name", err);
    for (const char *const *n = needles; *n; n++)
        if (!strstr(err, *n))
            fail_msg("\"%s\" does not say \"%s\"", err, *n);
}

static void other_gpus_are_refused_by_name(void **state)
{
    (void)state;
    static const char *const gpus[] = { "gfx700", "gfx803", "gfx900" };
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        char rel[64], path[1024], gpu[32];
        snprintf(rel, sizeof rel, "target/%s/micro", gpus[i]);
        co_path(path, sizeof path, rel);
        readelf_gpu(path, gpu, sizeof gpu);
        assert_string_equal(gpu, gpus[i]);      /* the build made what it says */
        const char *needles[] = { gpu, "-mcpu=tahiti", NULL };
        refused_with(rel, needles);
    }
}

static void southern_islands_chips_load(void **state)
{
    (void)state;
    struct si_program tahiti;
    assert_int_equal(si_test_load_kernels("test/micro", &tahiti), 0);
    static const char *const chips[] = { "gfx601", "gfx602" };
    for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++) {
        char rel[64], path[1024], gpu[32];
        snprintf(rel, sizeof rel, "target/%s/micro", chips[i]);
        co_path(path, sizeof path, rel);
        readelf_gpu(path, gpu, sizeof gpu);
        assert_string_equal(gpu, chips[i]);
        struct si_program p;
        assert_int_equal(si_test_load_kernels(rel, &p), 0);
        assert_int_equal(p.nkernels, tahiti.nkernels);
        for (size_t k = 0; k < tahiti.nkernels; k++)
            assert_non_null(si_program_kernel(&p, tahiti.kernels[k].name));
        si_program_free(&p);
    }
    si_program_free(&tahiti);
}

static void printf_is_refused_by_name(void **state)
{
    (void)state;
    char path[1024];
    co_path(path, sizeof path, "refused/printf");
    char *syms = readelf("--dyn-syms", path);
    assert_non_null(strstr(syms, "UND __printf_alloc"));   /* what clang leaves */
    free(syms);
    const char *needles[] = { "printf", "__printf_alloc", NULL };
    refused_with("refused/printf", needles);
}

static void undefined_function_is_refused_by_name(void **state)
{
    (void)state;
    char path[1024];
    co_path(path, sizeof path, "refused/undefined");
    char *rel = readelf("-rW", path);
    assert_non_null(strstr(rel, "R_AMDGPU_ABS64"));        /* its call goes through the GOT */
    free(rel);
    const char *needles[] = { "undefined symbol mystery", NULL };
    refused_with("refused/undefined", needles);
}

static void image_and_sampler_arguments_are_refused(void **state)
{
    (void)state;
    const char *image[] = { "kernel image_width", "argument 0 (image2d_t", "images", NULL };
    refused_with("refused/image", image);
    const char *sampler[] = { "kernel takes_sampler", "argument 0 (sampler_t", "samplers", NULL };
    refused_with("refused/sampler", sampler);
}

/* R_AMDGPU_RELATIVE64: the slot holds the image's address plus the addend
 * once placed; the kernel reads table[1] and table[2] through it. */
static void relative_relocation_is_applied(void **state)
{
    (void)state;
    char path[1024];
    co_path(path, sizeof path, "test/relocated");
    char *rel = readelf("-rW", path);
    const char *type = strstr(rel, "R_AMDGPU_RELATIVE64");
    assert_non_null(type);
    const char *line = type;
    while (line > rel && line[-1] != '\n')
        line--;
    unsigned long long offset, info, addend;
    assert_int_equal(sscanf(line, "%llx %llx R_AMDGPU_RELATIVE64 %llx", &offset, &info, &addend),
                     3);
    free(rel);
    struct si_program p;
    assert_int_equal(si_test_load_kernels("test/relocated", &p), 0);
    assert_int_equal(p.nrelocs, 1);
    assert_int_equal(p.relocs[0].offset, offset);
    assert_int_equal(p.relocs[0].addend, addend);

    struct si_test_arena a;
    si_test_arena_init(&a, 0x300000000ull, 1 << 20);
    uint64_t code = si_test_place_code(&a, &p);
    si_program_relocate(&p, code);
    memcpy(si_test_host(&a, code), p.image, p.image_size);
    uint64_t slot;
    memcpy(&slot, p.image + offset, 8);
    assert_int_equal(slot, code + addend);

    const struct si_kernel *k = si_program_kernel(&p, "read_through_pointer");
    assert_non_null(k);
    enum { N = 128 };
    uint64_t out = si_test_alloc(&a, N * 4);
    struct si_launch l;
    const uint32_t grid[3] = { N }, group[3] = { 64 };
    si_test_launch_init(&l, &p, k, code, 1, grid, group);
    si_test_launch_place(&l, &a, &out, sizeof out);
    struct si_memory mem = si_test_memory(&a);
    char err[512];
    if (si_run(&l, &mem, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
    const int32_t *o = si_test_host(&a, out);
    for (int i = 0; i < N; i++)
        assert_int_equal(o[i], (i & 1 ? 33 : 22) + i);     /* table = 11, 22, 33, 44 */
    si_test_arena_free(&a);
    si_program_free(&p);
}

/* A guest's cgm_gpu_load of a gfx900 code object fails with the loader's
 * message on tracegen's stderr (gpu_micro reads micro.co from CGM_KERNELS,
 * or build/kernels under its working directory when the guest has no such
 * variable: both point at the gfx900 build here). */
static void guest_load_of_another_gpu_fails_with_the_message(void **state)
{
    (void)state;
    const char *bin = getenv("CGM_BIN");
    char dir[1024], cmd[4096];
    snprintf(dir, sizeof dir, "%s/kernels/target/gfx900", build_dir());
    char tmp[] = "/tmp/cgm_si_refuse_XXXXXX";
    assert_non_null(mkdtemp(tmp));
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/build/kernels && cp %s/micro.co %s/build/kernels/ && cd %s && "
             "CGM_KERNELS=%s exec %s/tracegen --quiet --no-trace -- %s/traces/gpu/gpu_micro "
             "valu_64 64 64",
             tmp, dir, tmp, tmp, dir, bin ? bin : "bin", build_dir());
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    struct run_result *r = run_program(argv, NULL);
    assert_non_null(r);
    if (r->status == 0 || !strstr(r->err, "gfx900") || !strstr(r->err, "-mcpu=tahiti") ||
        !strstr(r->out, "FAIL"))
        fail_msg("status %d\nstdout: %s\nstderr: %s", r->status, r->out, r->err);
    run_result_free(r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(other_gpus_are_refused_by_name),
        cmocka_unit_test(southern_islands_chips_load),
        cmocka_unit_test(printf_is_refused_by_name),
        cmocka_unit_test(undefined_function_is_refused_by_name),
        cmocka_unit_test(image_and_sampler_arguments_are_refused),
        cmocka_unit_test(relative_relocation_is_applied),
        cmocka_unit_test(guest_load_of_another_gpu_fails_with_the_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
