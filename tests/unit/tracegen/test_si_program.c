/* The code-object loader on kernels compiled from tests/data/si/kernels/basic.cl.
 * Expected values come from the OpenCL C source and the AMDHSA ABI (argument
 * offsets by natural alignment, pointers 8 bytes), not from the loader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/si_isa.h"
#include "tracegen/si/si_program.h"
#include "tests/unit/si_harness.h"

static void basic_path(char *buf, size_t n)
{
    const char *b = getenv("CGM_BUILD");
    snprintf(buf, n, "%s/kernels/test/basic.co", b ? b : "build");
}

static int setup(void **state)
{
    static struct si_program prog;
    if (si_test_load_kernels("test/basic", &prog))
        return -1;
    *state = &prog;
    return 0;
}

static int teardown(void **state)
{
    si_program_free(*state);
    return 0;
}

static void finds_every_kernel(void **state)
{
    const struct si_program *p = *state;
    static const char *const names[] = { "vector_add", "saxpy", "reduce_sum", "collatz_steps",
        "int_mix", "daxpy", "private_array", "matmul", "ids", "float_math", "double_div_sqrt",
        "call_function", "histogram", "wide_mix" };
    assert_int_equal(p->nkernels, sizeof names / sizeof names[0]);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct si_kernel *k = si_program_kernel(p, names[i]);
        assert_non_null(k);
        /* Each kernel begins with a decodable instruction inside the image. */
        struct cgm_si_inst in;
        assert_true(cgm_si_decode(p->image + k->entry, p->image_size - k->entry, &in) > 0);
        assert_int_equal(k->wavefront_size, 64);
        /* The descriptor's kernarg size is the metadata's segment size. */
        assert_int_equal(k->kd.kernarg_size, k->kernarg_segment_size);
        assert_true(k->setup.kernarg_segment_ptr);
        /* The granulated register counts cover what the metadata says is used. */
        assert_true(k->setup.vgprs >= k->vgpr_count);
        assert_true(k->setup.sgprs >= k->sgpr_count);
    }
    assert_null(si_program_kernel(p, "no_such_kernel"));
}

static void argument_layout(void **state)
{
    const struct si_program *p = *state;
    const struct si_kernel *k = si_program_kernel(p, "vector_add");
    /* (const float *a, const float *b, float *c, uint n) */
    static const uint32_t off[] = { 0, 8, 16, 24 }, size[] = { 8, 8, 8, 4 };
    size_t explicit_args = 0;
    for (size_t i = 0; i < k->nargs; i++)
        explicit_args += !k->args[i].is_hidden;
    assert_int_equal(explicit_args, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(k->args[i].offset, off[i]);
        assert_int_equal(k->args[i].size, size[i]);
    }
    assert_string_equal(k->args[0].value_kind, "global_buffer");
    assert_string_equal(k->args[3].value_kind, "by_value");
    /* Hidden arguments come after, starting with the global offsets. */
    assert_true(k->args[4].is_hidden);
    assert_string_equal(k->args[4].value_kind, "hidden_global_offset_x");
    assert_true(k->args[4].offset >= 28 && k->args[4].offset % 8 == 0);

    /* (double alpha, const double *x, double *y) */
    k = si_program_kernel(p, "daxpy");
    assert_int_equal(k->args[0].size, 8);
    assert_int_equal(k->args[1].offset, 8);
    assert_int_equal(k->args[2].offset, 16);

    /* A __local pointer argument is a dynamic LDS allocation. */
    k = si_program_kernel(p, "reduce_sum");
    assert_string_equal(k->args[2].value_kind, "dynamic_shared_pointer");
    assert_string_equal(k->args[2].address_space, "local");
}

static void segments_and_setup(void **state)
{
    const struct si_program *p = *state;
    /* 32 uints indexed at run time need at least 128 bytes of scratch. */
    const struct si_kernel *k = si_program_kernel(p, "private_array");
    assert_true(k->kd.private_segment_fixed_size >= 128);
    assert_true(k->setup.scratch_en);
    assert_true(k->setup.private_segment_buffer);
    /* The 2-D kernels need work-item and work-group ids in y. */
    k = si_program_kernel(p, "matmul");
    assert_true(k->setup.workitem_id_dims >= 1);
    assert_true(k->setup.workgroup_id[1]);
    /* get_local_size reads the dispatch packet. */
    assert_true(si_program_kernel(p, "ids")->setup.dispatch_ptr);
}

static void setup_fields_decode(void **state)
{
    (void)state;
    /* rsrc1: 3 -> 16 VGPRs, 2 -> 24 SGPRs, denorm32 3, ieee; rsrc2: scratch,
     * 6 user SGPRs, group ids x and z, work-item ids up to y. */
    struct si_kernel_descriptor kd = { 0 };
    kd.rsrc1 = 3u | 2u << 6 | 3u << 16 | 1u << 23;
    kd.rsrc2 = 1u | 6u << 1 | 1u << 7 | 1u << 9 | 1u << 11;
    kd.properties = 1u | 1u << 3;
    struct si_kernel_setup s = si_kernel_setup_from(&kd);
    assert_int_equal(s.vgprs, 16);
    assert_int_equal(s.sgprs, 24);
    assert_int_equal(s.float_denorm_32, 3);
    assert_int_equal(s.float_denorm_64, 0);
    assert_true(s.ieee_mode);
    assert_true(s.scratch_en);
    assert_int_equal(s.user_sgpr_count, 6);
    assert_true(s.workgroup_id[0] && !s.workgroup_id[1] && s.workgroup_id[2]);
    assert_int_equal(s.workitem_id_dims, 1);
    assert_true(s.private_segment_buffer && s.kernarg_segment_ptr && !s.dispatch_ptr);
}

static void rejects_bad_files(void **state)
{
    (void)state;
    char path[1024], err[512];
    basic_path(path, sizeof path);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 1024);
    struct si_program p;

    assert_int_equal(si_program_load("/nonexistent/x.co", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/x.co"));
    assert_int_equal(si_program_load_memory("hello", 5, "h.co", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "h.co: not an ELF"));
    /* Every truncation fails cleanly or loads (never crashes). */
    for (size_t cut = 0; cut < n; cut += 97)
        if (si_program_load_memory(buf, cut, "cut.co", &p, err, sizeof err) == 0)
            si_program_free(&p);
    /* A different machine is refused by name. */
    uint8_t other[1 << 16];
    memcpy(other, buf, n);
    other[18] = 62;   /* e_machine = EM_X86_64 */
    other[19] = 0;
    assert_int_equal(si_program_load_memory(other, n, "x86.co", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "AMDGPU"));
    /* Flipping bytes anywhere never crashes the loader. */
    srand(7);
    for (int trial = 0; trial < 300; trial++) {
        memcpy(other, buf, n);
        for (int k = 0; k < 8; k++)
            other[(size_t)rand() % n] ^= (uint8_t)(1u << (rand() % 8));
        if (si_program_load_memory(other, n, "flip.co", &p, err, sizeof err) == 0)
            si_program_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_every_kernel),
        cmocka_unit_test(argument_layout),
        cmocka_unit_test(segments_and_setup),
        cmocka_unit_test(setup_fields_decode),
        cmocka_unit_test(rejects_bad_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
