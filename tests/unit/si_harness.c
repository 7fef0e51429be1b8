/* See si_harness.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "si_harness.h"

void si_test_arena_init(struct si_test_arena *a, uint64_t base, uint64_t size)
{
    a->mem = calloc(1, size);
    assert_non_null(a->mem);
    a->base = base;
    a->size = size;
    a->used = 0;
}

void si_test_arena_free(struct si_test_arena *a)
{
    free(a->mem);
    a->mem = NULL;
}

uint64_t si_test_alloc(struct si_test_arena *a, uint64_t bytes)
{
    uint64_t at = (a->used + 255) & ~255ull;
    assert_true(at <= a->size && bytes <= a->size - at);
    a->used = at + bytes;
    memset(a->mem + at, 0, bytes);
    return a->base + at;
}

void *si_test_host(const struct si_test_arena *a, uint64_t guest)
{
    return a->mem + (guest - a->base);
}

static uint8_t *arena_map(void *ctx, uint64_t addr, size_t len, int write)
{
    struct si_test_arena *a = ctx;
    (void)write;
    if (addr < a->base || addr - a->base > a->used || a->used - (addr - a->base) < len)
        return NULL;
    return a->mem + (addr - a->base);
}

struct si_memory si_test_memory(struct si_test_arena *a)
{
    return (struct si_memory){ a, arena_map };
}

int si_test_load_kernels(const char *name, struct si_program *p)
{
    const char *build = getenv("CGM_BUILD");
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/kernels/%s.co", build ? build : "build", name);
    if (si_program_load(path, p, err, sizeof err)) {
        print_error("%s\n", err);
        return -1;
    }
    return 0;
}

uint64_t si_test_place_code(struct si_test_arena *a, const struct si_program *prog)
{
    uint64_t code = si_test_alloc(a, prog->image_size);
    memcpy(si_test_host(a, code), prog->image, prog->image_size);
    return code;
}

void si_test_launch_init(struct si_launch *l, const struct si_program *prog,
                         const struct si_kernel *k, uint64_t code, unsigned dims,
                         const uint32_t grid[3], const uint32_t group[3])
{
    memset(l, 0, sizeof *l);
    l->program = prog;
    l->kernel = k;
    l->code_address = code;
    l->dims = dims;
    for (int d = 0; d < 3; d++) {
        l->grid[d] = grid[d] ? grid[d] : 1;
        l->group[d] = group[d] ? group[d] : 1;
    }
}

void si_test_launch_place(struct si_launch *l, struct si_test_arena *a, const void *args,
                          size_t args_bytes)
{
    uint32_t size = l->kernel->kernarg_segment_size;
    l->kernarg_address = si_test_alloc(a, size);
    assert_int_equal(si_build_kernarg(l->kernel, args, args_bytes,
                                      si_test_host(a, l->kernarg_address), size), size);
    l->packet_address = si_test_alloc(a, 64);
    si_fill_packet(l, si_test_host(a, l->packet_address));
    uint64_t scratch = si_scratch_bytes(l);
    l->scratch_address = si_test_alloc(a, scratch ? scratch : 4);
}
