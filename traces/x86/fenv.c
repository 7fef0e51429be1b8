/* The floating-point environment: float, double and long double
 * arithmetic and conversions under each rounding mode fesetround sets, the
 * exception flags fetestexcept reads after operations that raise them,
 * and libm functions that change the x87 control word themselves (expl,
 * rintl, nearbyint). Every value is printed in hexadecimal, so a
 * difference in the last bit shows. */
#include <fenv.h>
#include <math.h>
#include <stdio.h>

static volatile double one = 1.0, three = 3.0, tenth = 0.1, big = 1e308, tiny = 1e-310;
static volatile float onef = 1.0f, threef = 3.0f;
static volatile long double onel = 1.0L, threel = 3.0L;

static void show_flags(const char *what)
{
    int f = fetestexcept(FE_ALL_EXCEPT);
    printf("%-16s %s%s%s%s%s\n", what, f & FE_INVALID ? " invalid" : "",
           f & FE_DIVBYZERO ? " divbyzero" : "", f & FE_OVERFLOW ? " overflow" : "",
           f & FE_UNDERFLOW ? " underflow" : "", f & FE_INEXACT ? " inexact" : "");
    feclearexcept(FE_ALL_EXCEPT);
}

static void arithmetic(const char *mode)
{
    volatile double d = one / three, s = tenth + tenth + tenth, r = sqrt(three);
    volatile float f = onef / threef;
    volatile long double l = onel / threel, lr = sqrtl(threel);
    volatile long long i = llrint(2.5), j = llrint(-2.5);
    volatile long li = lrintl(3.5L);
    printf("%-8s %a %a %a %a %La %La %lld %lld %ld %a %a\n", mode, d, s, r, (double)f, l, lr,
           i, j, li, nearbyint(-0.5), rint(7.5));
}

int main(void)
{
    static const struct { int mode; const char *name; } modes[] = {
        { FE_TONEAREST, "nearest" }, { FE_DOWNWARD, "down" },
        { FE_UPWARD, "up" }, { FE_TOWARDZERO, "zero" },
    };
    for (int i = 0; i < 4; i++) {
        fesetround(modes[i].mode);
        printf("round %d\n", fegetround() == modes[i].mode);
        arithmetic(modes[i].name);
    }
    fesetround(FE_TONEAREST);
    feclearexcept(FE_ALL_EXCEPT);
    volatile double x;
    x = one / 0.0;
    show_flags("1/0");
    x = big * 10.0;
    show_flags("overflow");
    x = tiny * 1e-10;
    show_flags("underflow");
    x = 0.0 / 0.0 + one;
    show_flags("0/0");
    x = one + tenth;
    show_flags("inexact");
    x = (double)(long long)(one * 4.0);
    show_flags("exact");
    volatile long double lx = onel / 0.0L;
    show_flags("long 1/0");
    lx = expl(threel);
    printf("expl(3) %La\n", lx);
    lx = expl(-11355.5L);
    show_flags("expl underflow");
    (void)x;
    fenv_t env;
    fegetenv(&env);
    fesetround(FE_UPWARD);
    fesetenv(&env);
    printf("after fesetenv %d\n", fegetround() == FE_TONEAREST);
    return 0;
}
