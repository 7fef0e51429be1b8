/* The README's worked example of a cgm/guest.h GPU program: loads the code
 * object named by its argument (tracegen --compile-kernel scale.cl -o
 * scale.co), scales 1024 floats on the GPU and checks them on the CPU.
 * Natively there is no GPU: it says SKIP. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgm/guest.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scale.co\n", argv[0]);
        return 2;
    }
    if (!cgm_gpu_available()) {
        puts("SKIP: no GPU (run under tracegen)");
        return 0;
    }
    long prog = cgm_gpu_load(argv[1]);
    long k = prog > 0 ? cgm_gpu_kernel(prog, "scale") : prog;
    enum { N = 1024 };
    float *x = cgm_gpu_alloc(N * sizeof *x), *y = cgm_gpu_alloc(N * sizeof *y);
    if (k < 0 || !x || !y) {
        printf("FAIL: loading %s (%ld)\n", argv[1], k);
        return 1;
    }
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    /* the kernarg segment: x and y (8 bytes each), then a (4 bytes) */
    struct { uint64_t x, y; float a; } args = { (uintptr_t)x, (uintptr_t)y, 2.5f };
    size_t global[3] = { N, 1, 1 }, local[3] = { 64, 1, 1 };
    cgm_roi_begin();
    if (cgm_gpu_launch(k, 1, global, local, &args, sizeof args) < 0 || cgm_gpu_wait() < 0) {
        puts("FAIL: launch");
        return 1;
    }
    cgm_roi_end();
    for (int i = 0; i < N; i++)
        if (y[i] != 2.5f * (float)i) {
            printf("FAIL: y[%d] = %g\n", i, (double)y[i]);
            return 1;
        }
    puts("PASS");
    return 0;
}
