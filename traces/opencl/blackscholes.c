/* Black-Scholes prices of N European options, against the same formula on
 * the CPU in double precision. Usage: blackscholes [N]. */
#include "cl_set.h"

#define RATE 0.02
#define VOLATILITY 0.30

static double cnd(double d)
{
    const double a1 = 0.319381530, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978,
                 a5 = 1.330274429;
    double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double w = 0.39894228040 * exp(-0.5 * d * d) *
               (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0 ? 1.0 - w : w;
}

int main(int argc, char **argv)
{
    int n = cl_size_arg(argc, argv, 4096, 64, 1 << 24, 64, 0);
    size_t bytes = (size_t)n * 4;
    float *s = cl_alloc(bytes), *x = cl_alloc(bytes), *t = cl_alloc(bytes);
    float *call = cl_alloc(bytes), *put = cl_alloc(bytes), *want = cl_alloc(bytes);
    for (int i = 0; i < n; i++) {
        s[i] = 10.0f + 90.0f * cl_frand();
        x[i] = 10.0f + 90.0f * cl_frand();
        t[i] = 0.25f + 4.75f * cl_frand();
    }
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "blackscholes");
    cl_kernel k = cl_kernel_of(prog, "blackscholes");
    cgm_roi_begin();
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    cl_mem ms = cl_buffer(&env, in, bytes, s), mx = cl_buffer(&env, in, bytes, x);
    cl_mem mt = cl_buffer(&env, in, bytes, t);
    cl_mem mc = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    cl_mem mp = cl_buffer(&env, CL_MEM_WRITE_ONLY, bytes, NULL);
    CL_ARG(k, 0, ms);
    CL_ARG(k, 1, mx);
    CL_ARG(k, 2, mt);
    CL_ARG(k, 3, mc);
    CL_ARG(k, 4, mp);
    CL_ARG(k, 5, n);
    size_t global = (size_t)n, local = 64;
    cl_run(&env, k, 1, &global, &local);
    cl_read(&env, mc, bytes, call);
    cl_read(&env, mp, bytes, put);
    cgm_roi_end();
    /* prices are tens of units: an absolute error of a few thousandths is
     * the float exponential's and logarithm's, not a wrong formula */
    int ok = 1;
    for (int pass = 0; pass < 2 && ok; pass++) {
        for (int i = 0; i < n; i++) {
            double root = VOLATILITY * sqrt(t[i]);
            double d1 = (log((double)s[i] / x[i]) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * t[i]) /
                        root;
            double d2 = d1 - root, disc = x[i] * exp(-RATE * t[i]);
            want[i] = (float)(pass == 0 ? s[i] * cnd(d1) - disc * cnd(d2)
                                        : disc * cnd(-d2) - s[i] * cnd(-d1));
        }
        ok = cl_close(pass ? "put" : "call", pass ? put : call, want, (size_t)n, 1e-3f);
    }
    return cl_finish("call", call, (size_t)n, ok);
}
