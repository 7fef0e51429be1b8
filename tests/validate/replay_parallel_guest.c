/* Guest for replay's parallel validation and benchmark: T threads (argv[1],
 * default 4) each sum a quarter of an array eight times; the main thread
 * joins them and prints the total. The threads' work is the region of
 * interest. Built with musl-gcc -static -Iinclude. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgm/guest.h"
enum { N = 1 << 18, T = 4 };
static int *a;
static long sums[T];
static void *work(void *arg)
{
    long id = (long)arg, s = 0;
    for (int r = 0; r < 8; r++)
        for (int i = (int)id * (N / T); i < ((int)id + 1) * (N / T); i++)
            s += a[i] * (r + 1);
    sums[id] = s;
    return NULL;
}
int main(int argc, char **argv)
{
    int t = argc > 1 ? atoi(argv[1]) : T;
    a = malloc(N * sizeof *a);
    for (int i = 0; i < N; i++) a[i] = i % 97;
    pthread_t th[T];
    cgm_roi_begin();
    for (long i = 1; i < t; i++) pthread_create(&th[i], NULL, work, (void *)i);
    work((void *)0);
    for (long i = 1; i < t; i++) pthread_join(th[i], NULL);
    cgm_roi_end();
    long s = 0;
    for (int i = 0; i < t; i++) s += sums[i];
    printf("%ld\n", s);
    return 0;
}
