/* GPU calls from several guest threads: each thread launches write_array on
 * its own slice of one shared buffer and waits; the main thread checks the
 * whole array.  Each thread's GPU events go into its own stream.
 * Usage: threads_launch [THREADS 1..8 (default 3)] */
#include <pthread.h>

#include "gpu_common.h"

enum { SLICE = 1024, VALUE = 11 };

static long kernel;
static int *data;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, data); arg_int(&a, t * SLICE); arg_int(&a, VALUE);
    gpu_run(kernel, 1, SLICE, 1, 64, 1, &a);
    return (void *)(intptr_t)cgm_gpu_wait();
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 3;
    if (threads < 1 || threads > 8) {
        fprintf(stderr, "usage: %s [THREADS 1..8]\n", argv[0]);
        return 2;
    }
    gpu_require();
    kernel = gpu_get_kernel("write", "write_array");
    data = gpu_buffer((size_t)threads * SLICE * 4);
    pthread_t tid[8];
    for (int t = 0; t < threads; t++)
        if (pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t))
            gpu_die("pthread_create", 0);
    int ok = 1;
    for (int t = 0; t < threads; t++) {
        void *rc;
        pthread_join(tid[t], &rc);
        ok &= rc == NULL;
    }
    for (int i = 0; i < threads * SLICE && ok; i++)
        if (data[i] != VALUE + i) {
            printf("data[%d] = %d, want %d\n", i, data[i], VALUE + i);
            ok = 0;
        }
    return gpu_finish(ok);
}
