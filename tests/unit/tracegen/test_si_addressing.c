/* Address computation of the scalar and buffer memory instructions against
 * the SI ISA manual (chapter 8, "Buffer addressing" and "Range checking";
 * SMRD in chapter 7): each case runs a few instructions, encoded by llvm-mc
 * (the text beside each word; the test checks that the disassembler reads
 * them back so), on registers set here and memory that maps only the
 * buffers, and checks what reached memory and the registers against values
 * worked out by hand from the manual's formulas.  Two compiled kernels with
 * negative offsets clang folds into a resource's base run against the same
 * computation on the CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/si/si_emu.h"
#include "tests/unit/si_files.h"
#include "tests/unit/si_harness.h"

enum { LANES = 64, MAX_WORDS = 32, VROWS = 16 };
static const uint64_t ARENA_BASE = 0x10000;

/* One instruction: its words and LLVM's text for it. */
struct inst { uint32_t w[2]; const char *text; };

/* MUBUF words as llvm-mc -mcpu=tahiti encodes them (little-endian bytes
 * of its "encoding:" comment, as two 32-bit words). */
static const struct inst LOAD_ADDR64 = { { 0xe0308000, 0x80020102 },
                                         "buffer_load_dword v1, v[2:3], s[8:11], 0 addr64" };
static const struct inst STORE_ADDR64 = { { 0xe0708000, 0x80030104 },
                                          "buffer_store_dword v1, v[4:5], s[12:15], 0 addr64" };
static const struct inst STORE_X2_ADDR64 = {
    { 0xe0748000, 0x80030604 }, "buffer_store_dwordx2 v[6:7], v[4:5], s[12:15], 0 addr64" };
static const struct inst LOAD_OFFEN = { { 0xe0301000, 0x80020102 },
                                        "buffer_load_dword v1, v2, s[8:11], 0 offen" };
static const struct inst STORE_OFFEN = { { 0xe0701000, 0x80020302 },
                                         "buffer_store_dword v3, v2, s[8:11], 0 offen" };
static const struct inst LOAD_IDXEN_4 = { { 0xe0302004, 0x80020102 },
                                          "buffer_load_dword v1, v2, s[8:11], 0 idxen offset:4" };
static const struct inst LOAD_OFF = { { 0xe0300000, 0x80020100 },
                                      "buffer_load_dword v1, off, s[8:11], 0" };
static const struct inst LOAD_X2_OFFEN = { { 0xe0341000, 0x80020602 },
                                           "buffer_load_dwordx2 v[6:7], v2, s[8:11], 0 offen" };
static const struct inst LOAD_FORMAT_XY = {
    { 0xe0041000, 0x80020602 }, "buffer_load_format_xy v[6:7], v2, s[8:11], 0 offen" };
static const struct inst ATOMIC_ADD_GLC = { { 0xe0c85000, 0x80020302 },
                                            "buffer_atomic_add v3, v2, s[8:11], 0 offen glc" };
/* one-word instructions leave w[1] unused */
static const struct inst S_BUFFER_LOAD = { { 0xc20a1015, 0 },
                                           "s_buffer_load_dword s20, s[16:19], s21" };
static const struct inst V_MOV_S20 = { { 0x7e020214, 0 }, "v_mov_b32_e32 v1, s20" };

/* Registers the case sets before the first instruction (on top of what the
 * dispatch set up), the program and the memory it runs in. */
struct machine {
    uint32_t s[104];
    int s_set[104];
    uint32_t v[VROWS][LANES];
    int v_set[VROWS];
    uint8_t image[4 * MAX_WORDS + 4];
    struct cgm_si_inst insts[MAX_WORDS + 1];
    struct si_program prog;
    struct si_kernel kernel;
    struct si_test_arena arena;
    struct si_memory mem;
};

static void set_s(struct machine *m, unsigned r, uint32_t value)
{
    m->s[r] = value;
    m->s_set[r] = 1;
}

static void set_v(struct machine *m, unsigned r, uint32_t (*of_lane)(unsigned lane, uint64_t k),
                  uint64_t k)
{
    for (unsigned l = 0; l < LANES; l++)
        m->v[r][l] = of_lane(l, k);
    m->v_set[r] = 1;
}

static uint32_t lane_times(unsigned lane, uint64_t k) { return (uint32_t)(lane * k); }
static uint32_t lo_plus_4lane(unsigned lane, uint64_t k) { return (uint32_t)(k + 4 * lane); }
static uint32_t hi_of(unsigned lane, uint64_t k) { (void)lane; return (uint32_t)(k >> 32); }

/* v[lo:lo+1] = the 64-bit address BASE + 4 * lane. */
static void set_v_address(struct machine *m, unsigned lo, uint64_t base)
{
    set_v(m, lo, lo_plus_4lane, base);
    set_v(m, lo + 1, hi_of, base);
}

/* A buffer resource: base, stride, swizzle and num_records, then word 3. */
static void set_resource(struct machine *m, unsigned s0, uint64_t base, uint32_t stride,
                         int swizzle, uint32_t num_records, uint32_t word3)
{
    set_s(m, s0, (uint32_t)base);
    set_s(m, s0 + 1, (uint32_t)(base >> 32) | stride << 16 | (uint32_t)swizzle << 31);
    set_s(m, s0 + 2, num_records);
    set_s(m, s0 + 3, word3);
}

/* Word 3 as clang sets it for its addr64 resources (data format 32). */
static const uint32_t CLANG_WORD3 = 0x100f000;

static void wave_init(void *ctx, unsigned wave, uint32_t *s, uint32_t *v, unsigned nv)
{
    struct machine *m = ctx;
    (void)wave;
    for (unsigned r = 0; r < 104; r++)
        if (m->s_set[r])
            s[r] = m->s[r];
    for (unsigned r = 0; r < VROWS && r < nv; r++)
        if (m->v_set[r])
            memcpy(v + (size_t)r * LANES, m->v[r], sizeof m->v[r]);
}

static struct machine *machine_new(void)
{
    struct machine *m = calloc(1, sizeof *m);
    assert_non_null(m);
    si_test_arena_init(&m->arena, ARENA_BASE, 1 << 20);
    m->mem = si_test_memory(&m->arena);
    /* the low addresses the cases wrap onto hold nothing */
    si_test_alloc(&m->arena, 256);
    return m;
}

static void machine_free(struct machine *m)
{
    si_test_arena_free(&m->arena);
    free(m);
}

/* A buffer of N dwords whose dword i holds FILL + i. */
static uint64_t buffer(struct machine *m, unsigned n, uint32_t fill)
{
    uint64_t at = si_test_alloc(&m->arena, 4ull * n);
    uint32_t *p = si_test_host(&m->arena, at);
    for (unsigned i = 0; i < n; i++)
        p[i] = fill ? fill + i : 0;
    return at;
}

static const uint32_t *dwords(struct machine *m, uint64_t at)
{
    return si_test_host(&m->arena, at);
}

/* Runs the instructions, then s_endpgm, as one wavefront of 64 work-items;
 * returns si_run's result with its message in err. */
static int run(struct machine *m, const struct inst *const *code, size_t n, char *err,
               size_t errlen)
{
    size_t words = 0;
    for (size_t i = 0; i < n; i++) {
        struct cgm_si_inst in;
        char text[128];
        memcpy(m->image + 4 * words, code[i]->w, 8);
        cgm_si_decode(m->image + 4 * words, 8, &in);
        cgm_si_disasm(&in, text, sizeof text);
        if (strcmp(text, code[i]->text) != 0)
            fail_msg("the words of \"%s\" disassemble to \"%s\"", code[i]->text, text);
        words += in.size / 4;
        assert_true(words < MAX_WORDS);
    }
    static const uint32_t endpgm = 0xbf810000;
    memcpy(m->image + 4 * words++, &endpgm, 4);
    memset(m->insts, 0, sizeof m->insts);
    for (size_t w = 0; w < words; w++)
        cgm_si_decode(m->image + 4 * w, 4 * (words - w), &m->insts[w]);
    m->prog.image = m->image;
    m->prog.image_size = 4 * words;
    m->prog.text_start = 0;
    m->prog.text_end = 4 * words;
    m->prog.insts = m->insts;
    snprintf(m->kernel.name, sizeof m->kernel.name, "addressing");
    m->kernel.kd.rsrc1 = 63u | 12u << 6;      /* 256 VGPRs, 104 SGPRs */
    m->kernel.setup = si_kernel_setup_from(&m->kernel.kd);
    m->prog.kernels = &m->kernel;
    m->prog.nkernels = 1;
    struct si_launch l;
    const uint32_t grid[3] = { LANES, 1, 1 }, group[3] = { LANES, 1, 1 };
    si_test_launch_init(&l, &m->prog, &m->kernel, 0, 1, grid, group);
    l.max_instructions = 1000;
    l.wave_init = wave_init;
    l.wave_init_ctx = m;
    return si_run(&l, &m->mem, NULL, NULL, err, errlen);
}

static void run_ok(struct machine *m, const struct inst *const *code, size_t n)
{
    char err[512];
    if (run(m, code, n, err, sizeof err))
        fail_msg("%s", err);
}

/* s[12:15]: a resource with base 0 for the addr64 stores of results to OUT,
 * lane by lane (v[4:5] = OUT + 4 * lane). */
static void results_to(struct machine *m, uint64_t out)
{
    set_resource(m, 12, 0, 0, 0, 0, CLANG_WORD3);
    set_v_address(m, 4, out);
}

/* ---- addr64 ------------------------------------------------------------------ */

/* clang's p[-1]: base -4 (s_mov_b64 s[8:9], -4, which also sets the stride
 * and swizzle bits of word 1: addr64 does not use them), the 64-bit pointer
 * p in the VGPRs, 0 records.  base + p wraps at 48 bits onto p - 4. */
static void addr64_base_wraps_at_48_bits(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, LANES + 1, 1000), out = buffer(m, LANES, 0);
    set_s(m, 8, 0xfffffffc);
    set_s(m, 9, 0xffffffff);
    set_s(m, 10, 0);
    set_s(m, 11, CLANG_WORD3);
    set_v_address(m, 2, in + 4);
    results_to(m, out);
    const struct inst *code[] = { &LOAD_ADDR64, &STORE_ADDR64 };
    run_ok(m, code, 2);
    for (unsigned l = 0; l < LANES; l++)
        assert_int_equal(dwords(m, out)[l], 1000 + l);   /* in[l], the dword before p */
    machine_free(m);
}

/* ---- linear addressing ----------------------------------------------------------- */

/* base 2^48 - 0x100, offset 0x100 + IN + 4 * lane: the sum wraps onto IN. */
static void offen_address_wraps_at_48_bits(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, LANES, 2000), out = buffer(m, LANES, 0);
    set_resource(m, 8, (1ull << 48) - 0x100, 0, 0, 0xffffffff, CLANG_WORD3);
    set_v(m, 2, lo_plus_4lane, 0x100 + in);
    results_to(m, out);
    const struct inst *code[] = { &LOAD_OFFEN, &STORE_ADDR64 };
    run_ok(m, code, 2);
    for (unsigned l = 0; l < LANES; l++)
        assert_int_equal(dwords(m, out)[l], 2000 + l);
    machine_free(m);
}

/* A raw buffer (no IDXEN, no ADD_TID) is range-checked by its offset even
 * when the resource has a stride: 64 records with stride 16 and offsets
 * 4 * lane leave lanes 16.. out of range (reads 0, stores dropped). */
static void raw_buffer_with_stride_checks_the_offset(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, LANES, 3000), out = buffer(m, LANES, 0);
    set_resource(m, 8, in, 16, 0, 64, CLANG_WORD3);
    set_v(m, 2, lane_times, 4);
    set_v(m, 3, lane_times, 7);
    results_to(m, out);
    const struct inst *code[] = { &LOAD_OFFEN, &STORE_ADDR64, &STORE_OFFEN };
    run_ok(m, code, 3);
    for (unsigned l = 0; l < LANES; l++) {
        assert_int_equal(dwords(m, out)[l], l < 16 ? 3000 + l : 0);
        assert_int_equal(dwords(m, in)[l], l < 16 ? 7 * l : 3000 + l);
    }
    machine_free(m);
}

/* A private (scratch) buffer, ADD_TID_ENABLE without IDXEN, is not range
 * checked: one record of stride 4 still serves every lane at base + 4 * lane. */
static void private_buffer_is_not_range_checked(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, LANES, 4000), out = buffer(m, LANES, 0);
    set_resource(m, 8, in, 4, 0, 1, CLANG_WORD3 | 1u << 23);
    results_to(m, out);
    const struct inst *code[] = { &LOAD_OFF, &STORE_ADDR64 };
    run_ok(m, code, 2);
    for (unsigned l = 0; l < LANES; l++)
        assert_int_equal(dwords(m, out)[l], 4000 + l);
    machine_free(m);
}

/* buffer_load_dwordx2 is checked dword by dword: with 84 bytes and offsets
 * 8 * lane, lane 10's first dword (offset 80) is in range, its second (84)
 * is not. */
static void dwordx2_is_checked_per_dword(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, 2 * LANES, 5000), out = buffer(m, 2 * LANES, 0);
    set_resource(m, 8, in, 0, 0, 84, CLANG_WORD3);
    set_v(m, 2, lane_times, 8);
    set_resource(m, 12, 0, 0, 0, 0, CLANG_WORD3);
    set_v(m, 4, lane_times, 8);
    set_v(m, 5, hi_of, 0);
    for (unsigned l = 0; l < LANES; l++)
        m->v[4][l] += (uint32_t)out;
    const struct inst *code[] = { &LOAD_X2_OFFEN, &STORE_X2_ADDR64 };
    run_ok(m, code, 2);
    const uint32_t *o = dwords(m, out);
    for (unsigned l = 0; l < LANES; l++) {
        assert_int_equal(o[2 * l], l <= 10 ? 5000 + 2 * l : 0);
        assert_int_equal(o[2 * l + 1], l < 10 ? 5001 + 2 * l : 0);
    }
    machine_free(m);
}

/* A format load is in or out of range as a whole, by its offset: lane 10's
 * 8-byte 32_32 element at offset 80 of 84 bytes is read whole. */
static void format_load_is_checked_whole(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, 2 * LANES, 6000), out = buffer(m, 2 * LANES, 0);
    /* dst_sel x, y, z, w; number format uint; data format 32_32 */
    uint32_t word3 = 4u | 5u << 3 | 6u << 6 | 7u << 9 | 4u << 12 | 11u << 15;
    set_resource(m, 8, in, 0, 0, 84, word3);
    set_v(m, 2, lane_times, 8);
    set_resource(m, 12, 0, 0, 0, 0, CLANG_WORD3);
    set_v(m, 4, lane_times, 8);
    set_v(m, 5, hi_of, 0);
    for (unsigned l = 0; l < LANES; l++)
        m->v[4][l] += (uint32_t)out;
    const struct inst *code[] = { &LOAD_FORMAT_XY, &STORE_X2_ADDR64 };
    run_ok(m, code, 2);
    const uint32_t *o = dwords(m, out);
    for (unsigned l = 0; l < LANES; l++) {
        assert_int_equal(o[2 * l], l <= 10 ? 6000 + 2 * l : 0);
        assert_int_equal(o[2 * l + 1], l <= 10 ? 6001 + 2 * l : 0);
    }
    machine_free(m);
}

/* An atomic out of range changes nothing and returns 0 (a read out of
 * range): 16 bytes, offsets 4 * lane, add 1 with glc. */
static void atomic_out_of_range_is_dropped(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, LANES, 7000), out = buffer(m, LANES, 0);
    set_resource(m, 8, in, 0, 0, 16, CLANG_WORD3);
    set_v(m, 2, lane_times, 4);
    set_v(m, 3, lane_times, 0);
    for (unsigned l = 0; l < LANES; l++)
        m->v[3][l] = 1;
    results_to(m, out);
    static const struct inst STORE_V3 = { { 0xe0708000, 0x80030304 },
                                          "buffer_store_dword v3, v[4:5], s[12:15], 0 addr64" };
    const struct inst *code[] = { &ATOMIC_ADD_GLC, &STORE_V3 };
    run_ok(m, code, 2);
    for (unsigned l = 0; l < LANES; l++) {
        assert_int_equal(dwords(m, in)[l], l < 4 ? 7001 + l : 7000 + l);
        assert_int_equal(dwords(m, out)[l], l < 4 ? 7000 + l : 0);
    }
    machine_free(m);
}

/* ---- swizzled addressing ------------------------------------------------------- */

/* A structured buffer (IDXEN) is range-checked by the VGPR index, swizzled
 * or not.  Stride 8, element size 4, index stride 16, index = lane, offset 4:
 * the manual's swizzle puts lane l at (l / 16 * 8 + 4 / 4 * 4) * 16 +
 * l % 16 * 4 = 128 * (l / 16) + 64 + 4 * (l % 16); 40 records leave lanes
 * 40.. out of range. */
static void swizzled_structured_buffer_checks_the_index(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, 4 * LANES, 1), out = buffer(m, LANES, 0);
    uint32_t word3 = CLANG_WORD3 | 1u << 19 | 1u << 21;   /* element size 4, index stride 16 */
    set_resource(m, 8, in, 8, 1, 40, word3);
    set_v(m, 2, lane_times, 1);
    results_to(m, out);
    const struct inst *code[] = { &LOAD_IDXEN_4, &STORE_ADDR64 };
    run_ok(m, code, 2);
    for (unsigned l = 0; l < LANES; l++) {
        uint32_t byte = 128 * (l / 16) + 64 + 4 * (l % 16);
        assert_int_equal(dwords(m, out)[l], l < 40 ? 1 + byte / 4 : 0);
    }
    machine_free(m);
}

/* ---- scalar loads ---------------------------------------------------------------- */

/* s_buffer_load_dword from a resource whose base is 2^48 - 4: base + offset
 * wraps at 48 bits too. */
static void scalar_buffer_load_wraps_at_48_bits(void **state)
{
    (void)state;
    struct machine *m = machine_new();
    uint64_t in = buffer(m, 4, 8000), out = buffer(m, LANES, 0);
    set_resource(m, 16, (1ull << 48) - 4, 0, 0, 0xffffffff, CLANG_WORD3);
    set_s(m, 21, (uint32_t)in + 4 + 8);        /* in[2] */
    results_to(m, out);
    const struct inst *code[] = { &S_BUFFER_LOAD, &V_MOV_S20, &STORE_ADDR64 };
    run_ok(m, code, 3);
    for (unsigned l = 0; l < LANES; l++)
        assert_int_equal(dwords(m, out)[l], 8002);
    machine_free(m);
}

/* ---- compiled kernels ------------------------------------------------------------- */

/* The listing shows the resource base clang made from the negative offset;
 * without it the kernel would not test what it is for. */
static void listing_has_negative_base(const char *needle)
{
    const char *build = getenv("CGM_BUILD");
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/test/addressing.s", build ? build : "build");
    char *s = si_test_read_file(path, NULL);
    assert_non_null(s);
    if (!strstr(s, needle))
        fail_msg("%s: no \"%s\": clang no longer folds the offset into the base", path, needle);
    free(s);
}

struct kernel_run {
    struct si_program prog;
    struct si_test_arena arena;
    struct si_memory mem;
    uint64_t code;
};

static void kernel_run_init(struct kernel_run *k)
{
    assert_int_equal(si_test_load_kernels("test/addressing", &k->prog), 0);
    si_test_arena_init(&k->arena, 0x7f0000000000ull, 8 << 20);
    k->mem = si_test_memory(&k->arena);
    k->code = si_test_place_code(&k->arena, &k->prog);
}

static void kernel_run_free(struct kernel_run *k)
{
    si_program_free(&k->prog);
    si_test_arena_free(&k->arena);
}

static void launch(struct kernel_run *k, const char *name, unsigned dims, const uint32_t grid[3],
                   const uint32_t group[3], const void *args, size_t args_bytes)
{
    const struct si_kernel *kd = si_program_kernel(&k->prog, name);
    assert_non_null(kd);
    struct si_launch l;
    si_test_launch_init(&l, &k->prog, kd, k->code, dims, grid, group);
    si_test_launch_place(&l, &k->arena, args, args_bytes);
    char err[512];
    if (si_run(&l, &k->mem, NULL, NULL, err, sizeof err))
        fail_msg("%s", err);
}

static int32_t value_at(unsigned i) { return (int32_t)(i * 2654435761u >> 7) - (1 << 23); }

static void kernel_neighbour_diff(void **state)
{
    (void)state;
    listing_has_negative_base("s_mov_b64 s[8:9], -4");
    enum { N = 1000 };
    struct kernel_run k;
    kernel_run_init(&k);
    uint64_t in = si_test_alloc(&k.arena, N * 4), out = si_test_alloc(&k.arena, N * 4);
    int32_t *hin = si_test_host(&k.arena, in);
    for (unsigned i = 0; i < N; i++)
        hin[i] = value_at(i);
    struct { uint64_t in, out; int32_t n; } args = { in, out, N };
    const uint32_t grid[3] = { 1024 }, group[3] = { 256 };
    launch(&k, "neighbour_diff", 1, grid, group, &args, sizeof args);
    const int32_t *o = si_test_host(&k.arena, out);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(o[i], i > 0 && i + 1 < N ? hin[i - 1] - hin[i + 1] : 0);
    kernel_run_free(&k);
}

static void kernel_row_stencil(void **state)
{
    (void)state;
    listing_has_negative_base("s_mov_b64 s[0:1], -8");
    enum { W = 40, H = 24 };
    struct kernel_run k;
    kernel_run_init(&k);
    uint64_t in = si_test_alloc(&k.arena, W * H * 4), out = si_test_alloc(&k.arena, W * H * 4);
    int32_t *a = si_test_host(&k.arena, in);
    for (unsigned i = 0; i < W * H; i++)
        a[i] = value_at(i + 77);
    struct { uint64_t in, out; int32_t w, h; } args = { in, out, W, H };
    const uint32_t grid[3] = { 48, 32 }, group[3] = { 16, 8 };
    launch(&k, "row_stencil", 2, grid, group, &args, sizeof args);
    const int32_t *o = si_test_host(&k.arena, out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            int32_t want = 0;
            if (x >= 2 && y >= 1 && x < W - 2 && y < H - 1)
                want = a[i - 2] + 3 * a[i - 1] - a[i - W] + (a[i + W] ^ a[i + 1]) - a[i + 2];
            if (o[i] != want)
                fail_msg("(%d,%d): emulator %d, CPU %d", x, y, o[i], want);
        }
    kernel_run_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(addr64_base_wraps_at_48_bits),
        cmocka_unit_test(offen_address_wraps_at_48_bits),
        cmocka_unit_test(raw_buffer_with_stride_checks_the_offset),
        cmocka_unit_test(private_buffer_is_not_range_checked),
        cmocka_unit_test(dwordx2_is_checked_per_dword),
        cmocka_unit_test(format_load_is_checked_whole),
        cmocka_unit_test(atomic_out_of_range_is_dropped),
        cmocka_unit_test(swizzled_structured_buffer_checks_the_index),
        cmocka_unit_test(scalar_buffer_load_wraps_at_48_bits),
        cmocka_unit_test(kernel_neighbour_diff),
        cmocka_unit_test(kernel_row_stencil),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
