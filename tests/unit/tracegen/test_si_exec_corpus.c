/* Every instruction of the disassembler corpus (tests/data/si/corpus.txt),
 * run by the emulator in a one-wavefront program of its own followed by
 * s_endpgm, with registers filled from a fixed seed and memory that maps
 * only a small window: each must either complete or stop with a message
 * naming the instruction -- never crash, hang or hit undefined behaviour
 * (this test is meant for the sanitizer build too). */
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

enum { WINDOW = 1 << 16 };
static uint8_t window[WINDOW];
static const uint64_t WINDOW_BASE = 0x10000;

static uint8_t *map_window(void *ctx, uint64_t addr, size_t len, int write)
{
    (void)ctx;
    (void)write;
    if (addr < WINDOW_BASE || addr - WINDOW_BASE > WINDOW || WINDOW - (addr - WINDOW_BASE) < len)
        return NULL;
    return window + (addr - WINDOW_BASE);
}

/* A program image: the instruction under test at 0, then a prologue-free
 * s_endpgm; the kernel asks for every register it may name. */
struct fake {
    struct si_program prog;
    struct si_kernel kernel;
    uint8_t image[64];
};

static void make_fake(struct fake *f, const uint8_t *bytes, size_t n)
{
    memset(f, 0, sizeof *f);
    memcpy(f->image, bytes, n);
    static const uint8_t endpgm[4] = { 0x00, 0x00, 0x81, 0xbf };
    memcpy(f->image + n, endpgm, 4);
    f->prog.image = f->image;
    f->prog.image_size = sizeof f->image;
    f->prog.text_start = 0;
    f->prog.text_end = n + 4;
    static struct cgm_si_inst insts[64 / 4 + 1];
    memset(insts, 0, sizeof insts);
    for (size_t off = 0; off + 4 <= n + 4; off += 4)
        cgm_si_decode(f->image + off, n + 4 - off, &insts[off / 4]);
    f->prog.insts = insts;
    snprintf(f->kernel.name, sizeof f->kernel.name, "corpus");
    f->kernel.entry = 0;
    f->kernel.kd.rsrc1 = 63u | 12u << 6 | 3u << 16 | 3u << 18;   /* 256 VGPRs, 104 SGPRs */
    f->kernel.setup = si_kernel_setup_from(&f->kernel.kd);
    f->prog.kernels = &f->kernel;
    f->prog.nkernels = 1;
}

/* Registers from a fixed seed: small values (and addresses in the window)
 * and arbitrary bit patterns, so shifts, divisions and conversions meet
 * large, negative, NaN and denormal inputs. */
static uint64_t seed;
static uint32_t next_value(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(seed >> 32);
    switch (r % 4) {
    case 0: return r % 64;
    case 1: return (uint32_t)WINDOW_BASE + (r % (WINDOW / 2)) * 4;
    default: return r;
    }
}

static void fill_registers(void *ctx, unsigned wave, uint32_t *s, uint32_t *v, unsigned nv)
{
    (void)ctx;
    (void)wave;
    for (unsigned i = 0; i < 104; i++)
        s[i] = next_value();
    s[106] = next_value();
    s[107] = next_value();
    s[124] = next_value() % 64;      /* m0 */
    for (unsigned i = 0; i < nv * 64u; i++)
        v[i] = next_value();
}

static void every_corpus_instruction_runs_or_stops_cleanly(void **state)
{
    (void)state;
    char line[512];
    FILE *f = si_test_open_corpus();
    struct si_memory mem = { NULL, map_window };
    unsigned ran = 0, completed = 0, stopped = 0;
    seed = 42;
    static struct fake fk;
    while (fgets(line, sizeof line, f)) {
        uint8_t bytes[12];
        make_fake(&fk, bytes, si_test_parse_hex(line, bytes, sizeof bytes));
        struct si_launch l;
        memset(&l, 0, sizeof l);
        l.program = &fk.prog;
        l.kernel = &fk.kernel;
        l.code_address = 0;
        l.dims = 1;
        l.grid[0] = 64; l.grid[1] = l.grid[2] = 1;
        l.group[0] = 64; l.group[1] = l.group[2] = 1;
        l.max_instructions = 1000;
        l.wave_init = fill_registers;
        char err[512] = "";
        struct si_run_stats st;
        int rc = si_run(&l, &mem, NULL, &st, err, sizeof err);
        ran++;
        if (rc == 0) {
            completed++;
        } else {
            stopped++;
            /* a stop names the kernel and the instruction's address */
            if (!strstr(err, "kernel corpus") || !strstr(err, "pc 0x"))
                fail_msg("%s: unclear message \"%s\"", line, err);
        }
    }
    fclose(f);
    print_message("%u corpus instructions: %u completed, %u stopped with a message\n", ran,
                  completed, stopped);
    assert_true(ran > 2000);
    assert_true(completed > ran / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_corpus_instruction_runs_or_stops_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
