/* The VOPC opcode field split into its named parts, and the conditions. */
#include <math.h>

#include "tracegen/si/si_compare.h"

struct si_compare si_compare_of(unsigned code)
{
    static const enum si_cmp_type float_type[4] = {
        SI_CMP_TYPE_F32, SI_CMP_TYPE_F64, SI_CMP_TYPE_F32, SI_CMP_TYPE_F64 /* v_cmps */
    };
    static const enum si_cmp_type int_type[4] = {
        SI_CMP_TYPE_I32, SI_CMP_TYPE_I64, SI_CMP_TYPE_U32, SI_CMP_TYPE_U64
    };
    unsigned group = (code >> 5) & 7;
    struct si_compare c = { .writes_exec = (code >> 4) & 1 };
    if (group < 4) {
        c.type = float_type[group];
        c.cond = (enum si_cmp_cond)(code & 15);
    } else if (code & 8) {
        c.type = group == 4 ? SI_CMP_TYPE_CLASS_F32 : SI_CMP_TYPE_CLASS_F64;
        c.cond = SI_CMP_F;
    } else {
        c.type = int_type[group - 4];
        c.cond = (code & 7) == 7 ? SI_CMP_TRU : (enum si_cmp_cond)(code & 7);
    }
    return c;
}

int si_compare_float(enum si_cmp_cond cond, double a, double b)
{
    switch (cond) {
    case SI_CMP_F:   return 0;
    case SI_CMP_LT:  return a < b;
    case SI_CMP_EQ:  return a == b;
    case SI_CMP_LE:  return a <= b;
    case SI_CMP_GT:  return a > b;
    case SI_CMP_LG:  return a < b || a > b;
    case SI_CMP_GE:  return a >= b;
    case SI_CMP_O:   return !isnan(a) && !isnan(b);
    case SI_CMP_U:   return isnan(a) || isnan(b);
    case SI_CMP_NGE: return !(a >= b);
    case SI_CMP_NLG: return !(a < b || a > b);
    case SI_CMP_NGT: return !(a > b);
    case SI_CMP_NLE: return !(a <= b);
    case SI_CMP_NEQ: return !(a == b);
    case SI_CMP_NLT: return !(a < b);
    case SI_CMP_TRU: return 1;
    }
    return 1;
}

int si_compare_int(enum si_cmp_cond cond, int lt, int eq)
{
    switch (cond) {
    case SI_CMP_F:  return 0;
    case SI_CMP_LT: return lt;
    case SI_CMP_EQ: return eq;
    case SI_CMP_LE: return lt || eq;
    case SI_CMP_GT: return !lt && !eq;
    case SI_CMP_LG: return !eq;
    case SI_CMP_GE: return !lt;
    default:        return 1;      /* TRU; the float-only conditions never reach here */
    }
}
