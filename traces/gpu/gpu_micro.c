/* Launches one kernel of the micro-kernel code object (micro.co, built
 * from tests/data/si/kernels/micro.cl) over GLOBAL work-items in groups of
 * LOCAL: replay's analytical tests record it once per kernel and shape.
 *   gpu_micro KERNEL GLOBAL LOCAL [LAUNCHES]
 * Every micro-kernel takes (out, in, n); in holds GLOBAL floats, n is
 * GLOBAL. LAUNCHES (default 1) launches it that many times before one
 * wait. CGM_KERNELS names the directory holding micro.co (tracegen --env
 * CGM_KERNELS=DIR). */
#include "gpu_common.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s KERNEL GLOBAL LOCAL [LAUNCHES]\n", argv[0]);
        return 2;
    }
    gpu_require();
    long global = atol(argv[2]), local = atol(argv[3]), launches = argc > 4 ? atol(argv[4]) : 1;
    if (global < 2 || local < 1 || global % local || launches < 1) {
        fprintf(stderr, "%s: GLOBAL must be a multiple of LOCAL (and at least 2)\n", argv[0]);
        return 2;
    }
    long k = gpu_get_kernel("micro", argv[1]);
    float *in = gpu_buffer((size_t)global * 4), *out = gpu_buffer((size_t)global * 4);
    for (long i = 0; i < global; i++)
        in[i] = 1.0f / (float)(i + 1);
    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, out);
    arg_ptr(&a, in);
    arg_int(&a, (int)global);
    for (long l = 0; l < launches; l++)
        gpu_run(k, 1, (size_t)global, 1, (size_t)local, 1, &a);
    cgm_gpu_wait();
    return gpu_finish(1);
}
