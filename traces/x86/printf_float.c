/* printf of floats, doubles and long doubles (the C library's x87 paths),
 * plus the libm functions programs commonly call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    double d = 1.0;
    long double ld = 1.0L;
    float f = 0.5f;
    for (int i = 0; i < 40; i++) {
        d = d * 1.37 + 0.001 * i;
        ld = ld * 1.37L - 0.0001L * i;
        f = f * 1.1f + 0.25f;
        printf("%d %.17g %e %a %.20Lg %Lf %g %f\n", i, d, d / 3.0, d, ld, ld / 7, (double)f, -d);
    }
    printf("%.3f %.3f %.3f %.3f %.3f\n", sqrt(2.0), sin(1.0), exp(1.5), log(10.0), pow(2.5, 3.7));
    printf("%.10g %.10g %.10g\n", atan2(1.0, 3.0), floor(-2.5), fmod(17.25, 4.5));
    printf("%g %g %Lg\n", strtod("3.25e-7", NULL), atof("-1e300"), strtold("1.5e4000", NULL));
    printf("%lld %ld %d\n", llrint(2.5e15), lrint(-3.5), (int)(7.9 * 3));
    printf("%g %g %g\n", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0 * 0);
    return 0;
}
