/* K-means clustering (Rodinia-style): points assigned to the nearest
 * centre in parallel, centres recomputed by thread 0. Usage: kmeans [THREADS]. */
#include <float.h>
#include <string.h>

#include "rodinia_common.h"

enum { POINTS = 8192, FEAT = 8, K = 5, ITERS = 6 };
static float pts[POINTS][FEAT], centre[K][FEAT];
static int member[POINTS];
static double psum[MAX_THREADS][K][FEAT];
static int pcount[MAX_THREADS][K], changed[MAX_THREADS];

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    long lo, hi;
    split(POINTS, id, &lo, &hi);
    for (int it = 0; it < ITERS; it++) {
        memset(psum[id], 0, sizeof psum[id]);
        memset(pcount[id], 0, sizeof pcount[id]);
        changed[id] = 0;
        for (long p = lo; p < hi; p++) {
            int best = 0;
            float bd = FLT_MAX;
            for (int k = 0; k < K; k++) {
                float d = 0;
                for (int f = 0; f < FEAT; f++) {
                    float x = pts[p][f] - centre[k][f];
                    d += x * x;
                }
                if (d < bd) {
                    bd = d;
                    best = k;
                }
            }
            changed[id] += member[p] != best;
            member[p] = best;
            pcount[id][best]++;
            for (int f = 0; f < FEAT; f++)
                psum[id][best][f] += pts[p][f];
        }
        pthread_barrier_wait(&barrier);
        if (id == 0)
            for (int k = 0; k < K; k++) {
                int n = 0;
                double s[FEAT] = { 0 };
                for (int t = 0; t < nthreads; t++) {
                    n += pcount[t][k];
                    for (int f = 0; f < FEAT; f++)
                        s[f] += psum[t][k][f];
                }
                for (int f = 0; f < FEAT && n; f++)
                    centre[k][f] = (float)(s[f] / n);
            }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    for (int p = 0; p < POINTS; p++) {
        int c = p % K;
        for (int f = 0; f < FEAT; f++)
            pts[p][f] = (float)(c * 3.0 + lcg_unit() * 2.5 + f * 0.1);
        member[p] = -1;
    }
    for (int k = 0; k < K; k++)
        for (int f = 0; f < FEAT; f++)
            centre[k][f] = pts[k * 7][f];
    run_parallel(worker);
    double sum = 0;
    for (int k = 0; k < K; k++)
        for (int f = 0; f < FEAT; f++)
            sum += centre[k][f] * (k + 1);
    long msum = 0;
    for (int p = 0; p < POINTS; p++)
        msum += (long)member[p] * (p % 13);
    printf("kmeans threads %d centres %.6f members %ld\n", nthreads, sum, msum);
    return 0;
}
