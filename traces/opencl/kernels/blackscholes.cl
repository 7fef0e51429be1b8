/* Black-Scholes (AMD APP SDK BlackScholes): European call and put prices of
 * one option per work-item, the normal distribution by the Abramowitz and
 * Stegun polynomial. */
#define RATE 0.02f
#define VOLATILITY 0.30f

static float cnd(float d)
{
    const float a1 = 0.319381530f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float w = 0.39894228040f * exp(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - w : w;
}

__kernel void blackscholes(__global const float *spot, __global const float *strike,
                           __global const float *years, __global float *call,
                           __global float *put, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float s = spot[i], x = strike[i], t = years[i];
    float root = VOLATILITY * sqrt(t);
    float d1 = (log(s / x) + (RATE + 0.5f * VOLATILITY * VOLATILITY) * t) / root;
    float d2 = d1 - root;
    float discounted = x * exp(-RATE * t);
    call[i] = s * cnd(d1) - discounted * cnd(d2);
    put[i] = discounted * cnd(-d2) - s * cnd(-d1);
}
