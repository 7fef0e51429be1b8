/* LU decomposition (Rodinia-style, no pivoting, diagonally dominant input),
 * rows of each elimination step split among threads. Usage: lud [THREADS]. */
#include "rodinia_common.h"

enum { N = 160 };
static double a[N][N];

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int k = 0; k < N - 1; k++) {
        long lo, hi;
        split(N - k - 1, id, &lo, &hi);
        for (long r = k + 1 + lo; r < k + 1 + hi; r++) {
            double f = a[r][k] / a[k][k];
            a[r][k] = f;
            for (int c = k + 1; c < N; c++)
                a[r][c] -= f * a[k][c];
        }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i == j ? N * 2.0 + lcg_unit() : lcg_unit() - 0.5;
    run_parallel(worker);
    double sum = 0, diag = 1;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            sum += a[i][j] * (double)((i * 3 + j) % 11);
        diag *= a[i][i] / (N * 2.0);
    }
    printf("lud %dx%d threads %d checksum %.10f det-scale %.12g\n", N, N, nthreads, sum, diag);
    return 0;
}
