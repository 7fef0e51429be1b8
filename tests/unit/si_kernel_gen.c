/* See si_kernel_gen.h: what a generated kernel may do, and why each
 * construct's result is defined. */
#include "si_kernel_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Neighbour loads reach PAD elements either side of the work-item's own. */
enum { PAD = 32, MAX_TOP = 14, MAX_NEST = 2, MAX_DEPTH = 3, NSLOTS = SI_TEST_GEN_ACC,
       NLOCAL_SLOTS = 8 };

void si_test_text_add(struct si_test_text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        int n = t->cap ? vsnprintf(t->s + t->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t need = t->len + (n > 0 ? (size_t)n : 0) + 1;
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < need)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s)
            abort();
        t->s = s;
        t->cap = cap;
    }
}

void si_test_text_free(struct si_test_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

/* The helpers make the partial operations total: division by 0 or -1
 * (INT_MIN / -1) returns the dividend, its operands opaque to clang for
 * gfx600 (OPAQUE), whose 24-bit division shortcut is wrong when it judges
 * an operand's width from its sign bits (clang 14 divides (uint)clamp(x,
 * -683, 1563) by 32 through a float and masks the quotient to 11 bits;
 * LLVM issue 194829): the fuzzer tests the emulator, not that shortcut; sqf/sqd keep a value 0 or within
 * the range by exact power-of-two scaling and flush below it to 0; nzd
 * keeps a divisor from 0.  mix is a call kept out of line. */
void si_test_gen_prelude(struct si_test_text *t)
{
    si_test_text_add(t,
        "#pragma OPENCL FP_CONTRACT OFF\n"
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "#ifdef __AMDGCN__\n"
        "#define OPAQUE(x) __asm__ volatile(\"\" : \"+v\"(x))\n"
        "#else\n"
        "#define OPAQUE(x) (void)0\n"
        "#endif\n"
        "int sdiv(int a, int b) { OPAQUE(a); OPAQUE(b); return (b == 0 || b == -1) ? a : a / b; }\n"
        "int smod(int a, int b) { OPAQUE(a); OPAQUE(b); return (b == 0 || b == -1) ? a : a %% b; }\n"
        "uint udiv(uint a, uint b) { OPAQUE(a); OPAQUE(b); return b ? a / b : a; }\n"
        "uint umod(uint a, uint b) { OPAQUE(a); OPAQUE(b); return b ? a %% b : a; }\n"
        "float sqf(float x)\n"
        "{\n"
        "    return fabs(x) > 0x1p16f ? x * 0x1p-24f : fabs(x) < 0x1p-16f ? 0.0f : x;\n"
        "}\n"
        "double sqd(double x)\n"
        "{\n"
        "    return fabs(x) > 0x1p30 ? x * 0x1p-40 : fabs(x) < 0x1p-30 ? 0.0 : x;\n"
        "}\n"
        "double nzd(double x) { return x == 0.0 ? 1.0 : x; }\n"
        "__attribute__((noinline)) int mix(int a, int b)\n"
        "{\n"
        "    return (int)((((uint)a * 2654435761u) ^ ((uint)b >> 3)) + (uint)(b & 255));\n"
        "}\n");
}

/* ---- generation state ------------------------------------------------------- */

struct gen {
    uint64_t rng;
    struct si_test_text *t;
    unsigned loops;             /* loop variables t0..t(loops-1) in scope */
    unsigned nest;              /* if/loop/switch depth */
    unsigned mask;              /* inputs - 1 */
    unsigned lg;                /* work-items per group */
    int in_local_phase;         /* inside the block where local atomics are allowed */
    unsigned slot_op[NSLOTS], local_op[NLOCAL_SLOTS];
};

static uint64_t next(struct gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned pick(struct gen *g, unsigned n) { return (unsigned)(next(g) % n); }
static int chance(struct gen *g, unsigned percent) { return pick(g, 100) < percent; }
static int in_range(struct gen *g, int lo, int hi) { return lo + (int)pick(g, (unsigned)(hi - lo + 1)); }

#define OUT(...) si_test_text_add(g->t, __VA_ARGS__)

static void indent(struct gen *g)
{
    OUT("%*s", 4 * (int)(g->nest + 1), "");
}

/* A float value 0 or within [2^-16, 2^16] with a short mantissa. */
static float safe_float(uint64_t r)
{
    if (r % 11 == 0)
        return 0.0f;
    int e = (int)((r >> 8) % 29) - 14;                  /* 2^-14 .. 2^14 */
    float m = 1.0f + (float)((r >> 16) % 4096) / 4096.0f;
    float v = m;
    for (; e > 0; e--) v *= 2.0f;
    for (; e < 0; e++) v *= 0.5f;
    return (r >> 40) & 1 ? -v : v;
}

static double safe_double(uint64_t r)
{
    if (r % 13 == 0)
        return 0.0;
    int e = (int)((r >> 8) % 57) - 28;                  /* 2^-28 .. 2^28 */
    double v = 1.0 + (double)((r >> 16) % 1048576) / 1048576.0;
    for (; e > 0; e--) v *= 2.0;
    for (; e < 0; e++) v *= 0.5;
    return (r >> 40) & 1 ? -v : v;
}

static void int_expr(struct gen *g, unsigned depth);
static void long_expr(struct gen *g, unsigned depth);
static void float_expr(struct gen *g, unsigned depth);
static void double_expr(struct gen *g, unsigned depth);

/* ---- int expressions ------------------------------------------------------------ */

static void int_leaf(struct gen *g)
{
    switch (pick(g, g->loops ? 11 : 10)) {
    case 0: case 1: case 2: OUT("i%u", pick(g, 4)); break;
    case 3: OUT("(int)g"); break;
    case 4: OUT("(int)l"); break;
    case 5: OUT("si"); break;
    case 6: OUT("%d", in_range(g, -40, 40)); break;
    case 7: OUT("(int)0x%08xu", (unsigned)next(g)); break;
    case 8: OUT("p[%d]", in_range(g, -PAD, PAD)); break;        /* neighbours */
    case 9: OUT("pa[%u]", pick(g, 8)); break;
    default: OUT("t%u", pick(g, g->loops)); break;
    }
}

typedef void (*expr_fn)(struct gen *g, unsigned depth);

static void binary(struct gen *g, expr_fn e, const char *pre, const char *mid, const char *post,
                   unsigned depth)
{
    OUT("%s", pre);
    e(g, depth - 1);
    OUT("%s", mid);
    e(g, depth - 1);
    OUT("%s", post);
}

static void int_binary(struct gen *g, const char *pre, const char *mid, const char *post,
                       unsigned depth)
{
    binary(g, int_expr, pre, mid, post, depth);
}

static void condition(struct gen *g, unsigned depth);

/* (condition ? a : b) with both arms of E's type. */
static void ternary(struct gen *g, expr_fn e, unsigned depth)
{
    OUT("((");
    condition(g, depth - 1);
    OUT(") ? (");
    e(g, depth - 1);
    OUT(") : (");
    e(g, depth - 1);
    OUT("))");
}

/* ARRAY at a data-dependent index, masked inside the inputs. */
static void masked_load(struct gen *g, const char *array, unsigned depth)
{
    OUT("%s[(uint)(", array);
    int_expr(g, depth - 1);
    OUT(") & %uu]", g->mask);
}

static void condition(struct gen *g, unsigned depth)
{
    static const char *const cmp[] = { " < ", " > ", " == ", " != ", " <= ", " >= " };
    const char *op = cmp[pick(g, 6)];
    switch (pick(g, 5)) {
    case 0:
        OUT("(uint)(");
        int_expr(g, depth);
        OUT(")%s(uint)(", op);
        int_expr(g, depth);
        OUT(")");
        break;
    case 1:
        float_expr(g, depth);
        OUT("%s", op);
        float_expr(g, depth);
        break;
    case 2:
        double_expr(g, depth);
        OUT("%s", op);
        double_expr(g, depth);
        break;
    case 3:
        OUT("((");
        int_expr(g, depth);
        OUT(") & %u) != 0", 1u << pick(g, 8));
        break;
    default:
        OUT("(");
        int_expr(g, depth);
        OUT(")%s(", op);
        int_expr(g, depth);
        OUT(")");
        break;
    }
}

static void int_expr(struct gen *g, unsigned depth)
{
    if (depth == 0 || chance(g, 25)) {
        int_leaf(g);
        return;
    }
    switch (pick(g, 30)) {
    case 0: int_binary(g, "(int)((uint)(", ") + (uint)(", "))", depth); break;
    case 1: int_binary(g, "(int)((uint)(", ") - (uint)(", "))", depth); break;
    case 2: int_binary(g, "(int)((uint)(", ") * (uint)(", "))", depth); break;
    case 3: int_binary(g, "((", ") & (", "))", depth); break;
    case 4: int_binary(g, "((", ") | (", "))", depth); break;
    case 5: int_binary(g, "((", ") ^ (", "))", depth); break;
    case 6: int_binary(g, "(int)((uint)(", ") << ((", ") & 31))", depth); break;
    case 7: int_binary(g, "((", ") >> ((", ") & 31))", depth); break;
    case 8: int_binary(g, "(int)((uint)(", ") >> ((", ") & 31))", depth); break;
    case 9: int_binary(g, "sdiv(", ", ", ")", depth); break;
    case 10: int_binary(g, "smod(", ", ", ")", depth); break;
    case 11: int_binary(g, "(int)udiv((uint)(", "), (uint)(", "))", depth); break;
    case 12: int_binary(g, "(int)umod((uint)(", "), (uint)(", "))", depth); break;
    case 13: int_binary(g, "min(", ", ", ")", depth); break;
    case 14: int_binary(g, "max(", ", ", ")", depth); break;
    case 15: int_binary(g, "mul_hi(", ", ", ")", depth); break;
    case 16: int_binary(g, "(int)mul_hi((uint)(", "), (uint)(", "))", depth); break;
    case 17: int_binary(g, "mul24((", ") & 0x7ff, (", ") & 0x7ff)", depth); break;
    case 18: OUT("clz("); int_expr(g, depth - 1); OUT(")"); break;
    case 19: OUT("popcount("); int_expr(g, depth - 1); OUT(")"); break;
    case 20: {
        int lo = in_range(g, -1000, 1000);
        OUT("clamp(");
        int_expr(g, depth - 1);
        OUT(", %d, %d)", lo, lo + in_range(g, 0, 5000));
        break;
    }
    case 21: OUT("(int)abs(("); int_expr(g, depth - 1); OUT(") >> 1)"); break;
    case 22: ternary(g, int_expr, depth); break;
    case 23: OUT("(int)("); float_expr(g, depth - 1); OUT(")"); break;
    case 24: OUT("(int)("); double_expr(g, depth - 1); OUT(")"); break;
    case 25: OUT("(int)("); long_expr(g, depth - 1); OUT(")"); break;
    case 26: OUT("as_int("); float_expr(g, depth - 1); OUT(")"); break;
    case 27: /* strided and data-dependent loads, always inside ia */
        if (chance(g, 50))
            OUT("ia[(g * %uu + %uu) & %uu]", 1u + pick(g, 9), pick(g, 64), g->mask);
        else
            masked_load(g, "ia", depth);
        break;
    case 28: /* 64-bit pointer arithmetic: p minus 0..15, then -16..16 */
        OUT("(p - (long)((uint)(");
        int_expr(g, depth - 1);
        OUT(") & 15))[%d]", in_range(g, -16, 16));
        break;
    default: int_binary(g, "mix(", ", ", ")", depth); break;
    }
}

/* ---- long expressions --------------------------------------------------------- */

static void long_expr(struct gen *g, unsigned depth)
{
    if (depth == 0 || chance(g, 30)) {
        switch (pick(g, 4)) {
        case 0: case 1: OUT("l0"); break;
        case 2: OUT("(long)0x%016llxull", (unsigned long long)next(g)); break;
        default: OUT("(long)("); int_leaf(g); OUT(")"); break;
        }
        return;
    }
    switch (pick(g, 9)) {
    case 0: OUT("(long)((ulong)("); long_expr(g, depth - 1); OUT(") + (ulong)(");
            long_expr(g, depth - 1); OUT("))"); break;
    case 1: OUT("(long)((ulong)("); long_expr(g, depth - 1); OUT(") - (ulong)(");
            long_expr(g, depth - 1); OUT("))"); break;
    case 2: OUT("(long)((ulong)("); long_expr(g, depth - 1); OUT(") * (ulong)(");
            long_expr(g, depth - 1); OUT("))"); break;
    case 3: OUT("((long)("); int_expr(g, depth - 1); OUT(") * (long)(");
            int_expr(g, depth - 1); OUT("))"); break;
    case 4: OUT("(("); long_expr(g, depth - 1); OUT(") >> (("); int_expr(g, depth - 1);
            OUT(") & 63))"); break;
    case 5: OUT("(long)((ulong)("); long_expr(g, depth - 1); OUT(") << (("); int_expr(g, depth - 1);
            OUT(") & 63))"); break;
    case 6: OUT("(("); long_expr(g, depth - 1); OUT(") ^ ("); long_expr(g, depth - 1);
            OUT("))"); break;
    case 7: OUT("(long)((p + %d) - ia)", in_range(g, -PAD, PAD)); break;   /* g + PAD + c */
    default: OUT("(long)udiv((uint)("); int_expr(g, depth - 1); OUT("), 7u)"); break;
    }
}

/* ---- float and double expressions -------------------------------------------- */

static void float_leaf(struct gen *g)
{
    switch (pick(g, 7)) {
    case 0: case 1: case 2: OUT("f%u", pick(g, 3)); break;
    case 3: OUT("fp[%d]", in_range(g, -PAD, PAD)); break;
    case 4: OUT("sf"); break;
    case 5: OUT("fa[(g * %uu + %uu) & %uu]", 1u + pick(g, 7), pick(g, 64), g->mask); break;
    default: OUT("%af", (double)safe_float(next(g))); break;
    }
}

static void float_binary(struct gen *g, const char *pre, const char *mid, const char *post,
                         unsigned depth)
{
    binary(g, float_expr, pre, mid, post, depth);
}

static void float_expr(struct gen *g, unsigned depth)
{
    if (depth == 0 || chance(g, 30)) {
        float_leaf(g);
        return;
    }
    switch (pick(g, 15)) {
    case 0: float_binary(g, "sqf((", ") + (", "))", depth); break;
    case 1: float_binary(g, "sqf((", ") - (", "))", depth); break;
    case 2: case 3: float_binary(g, "sqf((", ") * (", "))", depth); break;
    case 4:
        OUT("sqf(fma(");
        float_expr(g, depth - 1);
        OUT(", ");
        float_expr(g, depth - 1);
        OUT(", ");
        float_expr(g, depth - 1);
        OUT("))");
        break;
    case 5: float_binary(g, "(fmin(", ", ", ") + 0.0f)", depth); break;  /* no -0 vs +0 choice */
    case 6: float_binary(g, "(fmax(", ", ", ") + 0.0f)", depth); break;
    case 7: OUT("floor("); float_expr(g, depth - 1); OUT(")"); break;
    case 8: OUT("ceil("); float_expr(g, depth - 1); OUT(")"); break;
    case 9: OUT("fabs("); float_expr(g, depth - 1); OUT(")"); break;
    case 10: OUT("(-("); float_expr(g, depth - 1); OUT("))"); break;
    case 11: OUT("sqf((float)("); int_expr(g, depth - 1); OUT("))"); break;
    case 12: OUT("sqf((float)("); double_expr(g, depth - 1); OUT("))"); break;
    case 13: ternary(g, float_expr, depth); break;
    default: masked_load(g, "fa", depth); break;
    }
}

static void double_leaf(struct gen *g)
{
    switch (pick(g, 6)) {
    case 0: case 1: case 2: OUT("d%u", pick(g, 2)); break;
    case 3: OUT("dp[%d]", in_range(g, -PAD, PAD)); break;
    case 4: OUT("(double)sf"); break;
    default: OUT("%a", safe_double(next(g))); break;
    }
}

static void double_expr(struct gen *g, unsigned depth)
{
    if (depth == 0 || chance(g, 30)) {
        double_leaf(g);
        return;
    }
    switch (pick(g, 10)) {
    case 0: binary(g, double_expr, "sqd((", ") + (", "))", depth); break;
    case 1: binary(g, double_expr, "sqd((", ") - (", "))", depth); break;
    case 2: binary(g, double_expr, "sqd((", ") * (", "))", depth); break;
    case 3: binary(g, double_expr, "sqd((", ") / nzd(", "))", depth); break;
    case 4: OUT("sqd(sqrt(fabs("); double_expr(g, depth - 1); OUT(")))"); break;
    case 5: OUT("(double)("); float_expr(g, depth - 1); OUT(")"); break;
    case 6: OUT("sqd((double)("); int_expr(g, depth - 1); OUT("))"); break;
    case 7: OUT("(-("); double_expr(g, depth - 1); OUT("))"); break;
    case 8: ternary(g, double_expr, depth); break;
    default: masked_load(g, "da", depth); break;
    }
}

/* ---- statements ----------------------------------------------------------------- */

/* Atomic operations by slot: each slot takes one kind for the whole kernel,
 * so its final value does not depend on the order of the work-items. */
static const char *const ATOMIC_OPS[] = { "atomic_add", "atomic_sub", "atomic_or", "atomic_xor",
                                          "atomic_and", "atomic_min", "atomic_max" };
enum { NATOMIC_OPS = sizeof ATOMIC_OPS / sizeof ATOMIC_OPS[0] };

static void statements(struct gen *g, unsigned n);

static void block(struct gen *g, unsigned n)
{
    OUT("{\n");
    g->nest++;
    statements(g, n);
    g->nest--;
    indent(g);
    OUT("}");
}

static void statement(struct gen *g)
{
    unsigned depth = 1 + pick(g, MAX_DEPTH);
    int can_nest = g->nest < MAX_NEST;
    indent(g);
    switch (pick(g, 20)) {
    case 0: case 1: case 2:
        OUT("i%u = ", pick(g, 4));
        int_expr(g, depth);
        OUT(";\n");
        break;
    case 3:
        OUT("i%u ^= ", pick(g, 4));
        int_expr(g, depth);
        OUT(";\n");
        break;
    case 4:
        OUT("l0 = ");
        long_expr(g, depth);
        OUT(";\n");
        break;
    case 5: case 6:
        OUT("f%u = ", pick(g, 3));
        float_expr(g, depth);
        OUT(";\n");
        break;
    case 7:
        OUT("d%u = ", pick(g, 2));
        double_expr(g, depth);
        OUT(";\n");
        break;
    case 8:
        OUT("pa[(uint)(");
        int_expr(g, 1);
        OUT(") & 7] = ");
        int_expr(g, depth);
        OUT(";\n");
        break;
    case 9: case 10: {
        unsigned slot = pick(g, NSLOTS);
        OUT("%s(&acc[%u], ", ATOMIC_OPS[g->slot_op[slot]], slot);
        int_expr(g, depth);
        OUT(");\n");
        break;
    }
    case 11:
        if (g->in_local_phase) {
            unsigned slot = pick(g, NLOCAL_SLOTS);
            OUT("%s(&lacc[%u], ", ATOMIC_OPS[g->local_op[slot]], slot);
            int_expr(g, depth);
            OUT(");\n");
        } else {
            OUT("i%u = mix(i%u, ", pick(g, 4), pick(g, 4));
            int_expr(g, depth);
            OUT(");\n");
        }
        break;
    case 12: case 13:
        if (!can_nest) {
            OUT("i%u ^= (int)g;\n", pick(g, 4));
            break;
        }
        OUT("if (");
        condition(g, 2);
        OUT(") ");
        block(g, 1 + pick(g, 3));
        if (chance(g, 60)) {
            OUT(" else ");
            block(g, 1 + pick(g, 3));
        }
        OUT("\n");
        break;
    case 14: case 15:
        if (!can_nest || g->loops >= 2) {
            OUT("i%u = (int)((uint)i%u * 3u + 1u);\n", pick(g, 4), pick(g, 4));
            break;
        }
        /* at most 7 trips: the bound is re-read but masked */
        OUT("for (int t%u = 0; t%u < (int)((uint)(", g->loops, g->loops);
        int_expr(g, 1);
        OUT(") & 7); t%u++) ", g->loops);
        g->loops++;
        block(g, 1 + pick(g, 3));
        g->loops--;
        OUT("\n");
        break;
    case 16:
        if (!can_nest || g->loops >= 2) {
            OUT("i%u = min(i%u, (int)l);\n", pick(g, 4), pick(g, 4));
            break;
        }
        OUT("for (int t%u = 0; t%u < 8; t%u++) {\n", g->loops, g->loops, g->loops);
        g->loops++;
        g->nest++;
        statements(g, 1 + pick(g, 2));
        indent(g);
        OUT("if (");
        condition(g, 1);
        OUT(") break;\n");
        g->nest--;
        g->loops--;
        indent(g);
        OUT("}\n");
        break;
    case 17:
        if (!can_nest) {
            OUT("f%u = sqf(f%u * 1.5f);\n", pick(g, 3), pick(g, 3));
            break;
        }
        OUT("switch ((uint)(");
        int_expr(g, 1);
        OUT(") & 3) {\n");
        for (unsigned c = 0; c < 3; c++) {
            indent(g);
            OUT("case %u: ", c);
            block(g, 1 + pick(g, 2));
            OUT(" break;\n");
        }
        indent(g);
        OUT("default: break;\n");
        indent(g);
        OUT("}\n");
        break;
    default:
        OUT("i%u = (int)((uint)i%u + (uint)", pick(g, 4), pick(g, 4));
        int_expr(g, depth);
        OUT(");\n");
        break;
    }
}

static void statements(struct gen *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        statement(g);
}

/* Top level only (uniform control flow): __local exchanges between
 * barriers, and a phase of local atomics that every work-item reads back. */
static void local_exchange(struct gen *g)
{
    OUT("    lm[l] = ");
    int_expr(g, 2);
    OUT(";\n    barrier(CLK_LOCAL_MEM_FENCE);\n");
    if (chance(g, 50))
        OUT("    i%u ^= lm[(l + %uu) & %uu];\n", pick(g, 4), pick(g, g->lg), g->lg - 1);
    else {
        OUT("    i%u = (int)((uint)i%u + (uint)lm[(uint)(", pick(g, 4), pick(g, 4));
        int_expr(g, 1);
        OUT(") & %uu]);\n", g->lg - 1);
    }
    OUT("    barrier(CLK_LOCAL_MEM_FENCE);\n");
}

static void local_atomic_phase(struct gen *g)
{
    OUT("    if (l < %u) lacc[l] = %d;\n    barrier(CLK_LOCAL_MEM_FENCE);\n", NLOCAL_SLOTS,
        in_range(g, -3, 3));
    g->in_local_phase = 1;
    for (unsigned i = 0, n = 1 + pick(g, 3); i < n; i++) {
        unsigned slot = pick(g, NLOCAL_SLOTS);
        OUT("    %s(&lacc[%u], ", ATOMIC_OPS[g->local_op[slot]], slot);
        int_expr(g, 2);
        OUT(");\n");
    }
    statements(g, 1 + pick(g, 2));
    g->in_local_phase = 0;
    OUT("    barrier(CLK_LOCAL_MEM_FENCE);\n    i%u ^= lacc[%u];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n", pick(g, 4), pick(g, NLOCAL_SLOTS));
}

/* ---- kernels ----------------------------------------------------------------------- */

static unsigned pow2_at_least(unsigned n)
{
    unsigned p = 1;
    while (p < n)
        p *= 2;
    return p;
}

void si_test_gen_kernel(uint64_t seed, unsigned index, struct si_test_text *t,
                        struct si_test_gen_kernel *k)
{
    struct gen gs, *g = &gs;
    memset(g, 0, sizeof *g);
    g->rng = seed * 0x100000001b3ull ^ ((uint64_t)index << 32 | index);
    g->t = t;
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "fuzz_%u", index);
    static const uint32_t groups1[] = { 64, 128, 256, 32 };
    static const uint32_t groups2[][2] = { { 8, 8 }, { 16, 4 }, { 32, 2 }, { 16, 16 } };
    if (chance(g, 75)) {
        k->dims = 1;
        k->group[0] = groups1[pick(g, 4)];
        k->group[1] = 1;
        k->grid[0] = k->group[0] * (1 + pick(g, 512 / k->group[0]));
        k->grid[1] = 1;
    } else {
        k->dims = 2;
        unsigned c = pick(g, 4);
        k->group[0] = groups2[c][0];
        k->group[1] = groups2[c][1];
        k->grid[0] = k->group[0] * (1 + pick(g, 2));
        k->grid[1] = k->group[1] * (1 + pick(g, 2));
    }
    k->grid[2] = k->group[2] = 1;
    k->items = k->grid[0] * k->grid[1];
    k->inputs = pow2_at_least(k->items + 2 * PAD);
    k->si = (int32_t)next(g);
    k->sf = safe_float(next(g));
    k->input_seed = next(g);
    g->mask = k->inputs - 1;
    g->lg = k->group[0] * k->group[1];
    for (unsigned s = 0; s < NSLOTS; s++)
        g->slot_op[s] = pick(g, NATOMIC_OPS);
    for (unsigned s = 0; s < NLOCAL_SLOTS; s++)
        g->local_op[s] = pick(g, NATOMIC_OPS);

    OUT("\n__kernel void %s(__global const int *ia, __global const float *fa,\n"
        "    __global const double *da, __global int *io, __global float *fo,\n"
        "    __global double *dout, __global int *acc, int si, float sf)\n{\n", k->name);
    if (k->dims == 1)
        OUT("    uint g = get_global_id(0), l = get_local_id(0);\n");
    else
        OUT("    uint g = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
            "    uint l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n");
    OUT("    __local int lm[%u];\n    __local int lacc[%u];\n", g->lg, NLOCAL_SLOTS);
    OUT("    __global const int *p = ia + g + %d;\n"
        "    __global const float *fp = fa + g + %d;\n"
        "    __global const double *dp = da + g + %d;\n", PAD, PAD, PAD);
    OUT("    int i0 = p[0], i1 = si, i2 = (int)g, i3 = p[-1] ^ p[1];\n"
        "    long l0 = (long)((ulong)(long)p[2] << 20);\n"
        "    float f0 = fp[0], f1 = sf, f2 = fp[-1];\n"
        "    double d0 = dp[0], d1 = (double)fp[1];\n"
        "    int pa[8];\n"
        "    for (int k = 0; k < 8; k++)\n"
        "        pa[k] = p[k - 4];\n");
    unsigned top = 4 + pick(g, MAX_TOP - 3);
    for (unsigned i = 0; i < top; i++) {
        unsigned r = pick(g, 10);
        if (r == 0)
            local_exchange(g);
        else if (r == 1)
            local_atomic_phase(g);
        else
            statement(g);
    }
    OUT("    __global int *w = io + (g + 1) * %u;\n", SI_TEST_GEN_INTS);
    OUT("    w[-1] = i0; w[-2] = i1; w[-3] = i2; w[-4] = i3;\n"
        "    w[-5] = (int)l0; w[-6] = (int)(l0 >> 32);\n");
    OUT("    fo[g * %u] = f0; fo[g * %u + 1] = f1; fo[g * %u + 2] = f2;\n", SI_TEST_GEN_FLOATS,
        SI_TEST_GEN_FLOATS, SI_TEST_GEN_FLOATS);
    OUT("    dout[g * %u] = d0; dout[g * %u + 1] = d1;\n}\n", SI_TEST_GEN_DOUBLES,
        SI_TEST_GEN_DOUBLES);
}

void si_test_gen_inputs(const struct si_test_gen_kernel *k, int32_t *ia, float *fa, double *da)
{
    struct gen g;
    memset(&g, 0, sizeof g);
    g.rng = k->input_seed;
    for (uint32_t i = 0; i < k->inputs; i++) {
        uint64_t r = next(&g);
        switch (r % 4) {
        case 0: ia[i] = (int32_t)(r >> 32) % 100; break;
        case 1: ia[i] = (int32_t)(r >> 40); break;
        default: ia[i] = (int32_t)(r >> 32); break;
        }
        fa[i] = safe_float(next(&g));
        da[i] = safe_double(next(&g));
    }
}
