/* Shared helpers of the Rodinia-style CPU workloads (seed 000 Sec. 3.3.1):
 * a deterministic generator, a thread pool run with a barrier, and the
 * region-of-interest markers around the parallel part. */
#ifndef RODINIA_COMMON_H
#define RODINIA_COMMON_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgm/guest.h"

#define MAX_THREADS 64

static int nthreads = 4;
static pthread_barrier_t barrier;
static unsigned long long lcg_state = 0x2545F4914F6CDD1Dull;

static inline unsigned lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(lcg_state >> 33);
}

static inline double lcg_unit(void)
{
    return (double)(lcg() % 1000000) / 1000000.0;
}

/* Splits [0, n) evenly: the part of thread ID. */
static inline void split(long n, int id, long *lo, long *hi)
{
    *lo = n * id / nthreads;
    *hi = n * (id + 1) / nthreads;
}

/* Runs FN(id) on nthreads threads inside the region of interest. */
static inline void run_parallel(void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    cgm_roi_begin();
    for (long t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, fn, (void *)t);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    cgm_roi_end();
    pthread_barrier_destroy(&barrier);
}

static inline void parse_threads(int argc, char **argv)
{
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (nthreads < 1 || nthreads > MAX_THREADS) {
        fprintf(stderr, "threads must be 1..%d\n", MAX_THREADS);
        exit(2);
    }
}

#endif
