/* Multithreaded matrix multiply: C = A * B, rows split among pthreads.
 * Prints a checksum of C. Usage: matmul_mt [N [THREADS]] (default 128 4). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgm/guest.h"

static int n = 128, nthreads = 4;
static double *a, *b, *c;

static void *worker(void *arg)
{
    long id = (long)arg;
    int lo = (int)(n * id / nthreads), hi = (int)(n * (id + 1) / nthreads);
    for (int i = lo; i < hi; i++)
        for (int k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (n < 1 || nthreads < 1 || nthreads > 64)
        return 2;
    a = malloc(sizeof(double) * n * n);
    b = malloc(sizeof(double) * n * n);
    c = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n * n; i++) {
        a[i] = (double)(i % 17) - 8.0;
        b[i] = (double)((i * 7) % 13) * 0.5;
    }
    pthread_t th[64];
    cgm_roi_begin();
    for (long t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    cgm_roi_end();
    double sum = 0, wsum = 0;
    for (int i = 0; i < n * n; i++) {
        sum += c[i];
        wsum += c[i] * (double)(i % 101);
    }
    printf("matmul %dx%d threads %d checksum %.6f %.6f\n", n, n, nthreads, sum, wsum);
    free(a);
    free(b);
    free(c);
    return 0;
}
