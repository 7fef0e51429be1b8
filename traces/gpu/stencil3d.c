/* A 3D stencil over a growing volume (seed 004 Fig. 6.5): STEPS time steps
 * of a 7-point stencil over an N x N x N volume shared with the GPU by
 * pointer. Before each step the CPU introduces the source (one element at
 * the volume's centre: one block dirty); every DUMP steps, and after the
 * last, the CPU writes the volume out (copies all of it to a host array, as
 * the seed's program writes it to disk: every block comes back).
 *   stencil3d [N (multiple of 16, default 32)] [STEPS (default 4)] [DUMP (default 2)] [CHECK (default 1)]
 * The region of interest is the time steps with their source introductions
 * and write-outs. CHECK 0 leaves out the CPU's own computation and the
 * check (the GPU's volume against it). */
#include "gpu_common.h"

#define CENTRE 0.4f
#define SIDE 0.1f

/* The kernel's arithmetic, in its order (stencil3d.cl). */
static void cpu_step(const float *in, float *out, int n)
{
    long plane = (long)n * n;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                long i = z * plane + (long)y * n + x;
                if (!x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1) {
                    out[i] = in[i];
                    continue;
                }
                float s = in[i - 1] + in[i + 1];
                s = s + in[i - n];
                s = s + in[i + n];
                s = s + in[i - plane];
                s = s + in[i + plane];
                out[i] = CENTRE * in[i] + SIDE * s;
            }
}

int main(int argc, char **argv)
{
    gpu_require();
    int n = argc > 1 ? atoi(argv[1]) : 32, steps = argc > 2 ? atoi(argv[2]) : 4;
    int dump = argc > 3 ? atoi(argv[3]) : 2, check = argc > 4 ? atoi(argv[4]) : 1;
    if (argc > 5 || n < 16 || n % 16 || steps < 1 || dump < 1) {
        puts("FAIL: usage: stencil3d [N (a multiple of 16)] [STEPS] [DUMP] [CHECK]");
        return 1;
    }
    long k = gpu_get_kernel("stencil3d", "stencil7");
    size_t cells = (size_t)n * n * n, bytes = cells * sizeof(float);
    float *v[2] = { gpu_buffer(bytes), gpu_buffer(bytes) }, *disk = malloc(bytes);
    float *ref[2] = { check ? calloc(cells, sizeof(float)) : NULL, check ? calloc(cells, sizeof(float)) : NULL };
    if (!disk || (check && (!ref[0] || !ref[1])))
        gpu_die("malloc", 0);
    size_t source = cells / 2 + (size_t)n * n / 2 + (size_t)n / 2;
    for (size_t i = 0; i < cells; i++)
        v[0][i] = 0.0f;
    double written = 0;
    cgm_roi_begin();
    for (int s = 0; s < steps; s++) {
        float *in = v[s & 1], *out = v[!(s & 1)];
        in[source] += 1.0f; /* the source's pulse */
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, in);
        arg_ptr(&a, out);
        arg_int(&a, n);
        arg_float(&a, CENTRE);
        arg_float(&a, SIDE);
        gpu_run(k, 2, (size_t)n, (size_t)n, 16, 16, &a);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
        if ((s + 1) % dump == 0 || s + 1 == steps) {
            for (size_t i = 0; i < cells; i++) /* element by element: the CPU reads every block */
                disk[i] = out[i];
            written += (double)bytes;
        }
    }
    cgm_roi_end();
    if (!check)
        return gpu_finish(written > 0);
    for (int s = 0; s < steps; s++) {
        ref[s & 1][source] += 1.0f;
        cpu_step(ref[s & 1], ref[!(s & 1)], n);
    }
    int ok = gpu_close("volume", disk, ref[steps & 1], cells, 1e-6f);
    return gpu_finish(ok);
}
