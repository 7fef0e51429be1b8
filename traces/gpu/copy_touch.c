/* A program that shares two GPU buffers by pointer with a known touch
 * pattern, for the copy protocols' byte counts: the CPU writes every int
 * of IN (N of them), the GPU writes every int of OUT (write_array), and
 * the CPU reads back the first READ ints of OUT only.
 *   copy_touch N READ */
#include "gpu_common.h"

int main(int argc, char **argv)
{
    gpu_require();
    long n = argc > 1 ? atol(argv[1]) : 65536, read = argc > 2 ? atol(argv[2]) : 1024;
    if (n < 64 || n % 64 || read < 1 || read > n) {
        puts("FAIL: usage: copy_touch N READ (N a multiple of 64, 1 <= READ <= N)");
        return 1;
    }
    long k = gpu_get_kernel("write", "write_array");
    int *in = gpu_buffer((size_t)n * sizeof *in), *out = gpu_buffer((size_t)n * sizeof *out);
    for (long i = 0; i < n; i++)
        in[i] = (int)i;
    struct gpu_args a = { .n = 0 };
    arg_ptr(&a, out);
    arg_int(&a, 0);
    arg_int(&a, 7);
    cgm_roi_begin();
    gpu_run(k, 1, (size_t)n, 1, 64, 1, &a);
    if (cgm_gpu_wait() < 0)
        gpu_die("wait", 0);
    int ok = 1;
    for (long i = 0; i < read; i++)
        ok &= out[i] == 7 + (int)i;
    cgm_roi_end();
    return gpu_finish(ok);
}
