/* Collaborative write (seed 000 Sec. 3.3.2.5): every element of an array
 * gets value + index; the CPU threads write the first part, the GPU the rest. */
#include "collab_common.h"
#include "collab_write_cpu.h"

int main(int argc, char **argv)
{
    struct collab c = collab_args(argc, argv);
    gpu_require();
    long k = gpu_get_kernel("write", "write_array");
    int *data = collab_host(&c, N * 4);
    int cpu = collab_cpu_units(&c, N, G), gpu = N - cpu;
    cgm_roi_begin();
    int *gd = collab_to_gpu(&c, data, N * 4, 0);
    if (gpu) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, gd); arg_int(&g, cpu); arg_int(&g, VALUE);
        gpu_run(k, 1, (size_t)gpu, 1, 64, 1, &g);
    }
    collab_cpu(&c, cpu, cpu_part, data);
    cgm_gpu_wait();
    collab_from_gpu(&c, data, gd, (size_t)cpu * 4, (size_t)gpu * 4);
    cgm_roi_end();
    for (int i = 0; i < N; i++)
        if (data[i] != VALUE + i) {
            printf("data[%d] = %d, want %d\n", i, data[i], VALUE + i);
            return gpu_finish(0);
        }
    return gpu_finish(1);
}
