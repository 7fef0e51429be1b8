/* Hotspot (Rodinia-style): thermal simulation on a grid, rows split among
 * threads, one barrier per step. Usage: hotspot [THREADS]. */
#include "rodinia_common.h"

enum { R = 192, C = 192, STEPS = 24 };
static double temp[2][R][C], power[R][C];

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    long lo, hi;
    split(R, id, &lo, &hi);
    const double cap = 0.5, rx = 1.0 / 0.1, ry = 1.0 / 0.1, rz = 1.0 / 6.0, amb = 80.0;
    for (int s = 0; s < STEPS; s++) {
        double (*src)[C] = temp[s & 1], (*dst)[C] = temp[(s + 1) & 1];
        for (long r = lo; r < hi; r++)
            for (int c = 0; c < C; c++) {
                double t = src[r][c];
                double n = r > 0 ? src[r - 1][c] : t, so = r < R - 1 ? src[r + 1][c] : t;
                double w = c > 0 ? src[r][c - 1] : t, e = c < C - 1 ? src[r][c + 1] : t;
                dst[r][c] = t + 0.001 / cap * (power[r][c] + (n + so - 2 * t) * ry +
                                               (e + w - 2 * t) * rx + (amb - t) * rz);
            }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            temp[0][r][c] = 320.0 + lcg_unit() * 10;
            power[r][c] = (r / 32 + c / 32) % 3 == 0 ? lcg_unit() * 2 : 0.0;
        }
    run_parallel(worker);
    double sum = 0, mx = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            double t = temp[STEPS & 1][r][c];
            sum += t;
            if (t > mx)
                mx = t;
        }
    printf("hotspot %dx%d threads %d mean %.10f max %.10f\n", R, C, nthreads, sum / (R * C), mx);
    return 0;
}
