/* Hostile launches: every kernel of the workloads launched with random grids
 * and random argument bytes (small integers, sometimes the address of a GPU
 * buffer, so kernels read and write wherever those lead).  Every call must
 * return 0 or one of the documented -errno values; a fault is the kernel's,
 * never tracegen's.  Prints PASS when tracegen survived them all.
 * Usage: driver_fuzz [ITERATIONS (default 200)] [SEED] */
#include <errno.h>

#include "gpu_common.h"

/* code object, kernel, explicit argument bytes (from the .cl signatures) */
static const struct { const char *program, *name; unsigned args; } kernels[] = {
    { "backprop", "bp_layerforward", 36 }, { "backprop", "bp_adjust_weights", 36 },
    { "bfs", "bfs_expand", 52 }, { "bfs", "bfs_advance", 36 },
    { "block_matmul", "block_matmul", 32 }, { "collab_backprop", "cb_adjust_weights", 40 },
    { "edge_detect", "edge_detect", 36 }, { "hotspot", "hotspot_step", 56 },
    { "kmeans", "kmeans_swap", 24 }, { "kmeans", "kmeans_assign", 36 },
    { "knn", "knn_distance", 32 }, { "lud", "lud_scale", 16 }, { "lud", "lud_update", 16 },
    { "nw", "nw_diagonal", 28 }, { "write", "write_array", 16 },
};
enum { NK = sizeof kernels / sizeof *kernels, BUF = 1 << 16 };

static uint32_t rnd(void)
{
    gpu_seed ^= gpu_seed << 13;
    gpu_seed ^= gpu_seed >> 17;
    gpu_seed ^= gpu_seed << 5;
    return gpu_seed;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 200;
    if (argc > 2)
        gpu_seed = (uint32_t)strtoul(argv[2], NULL, 0) * 2 + 1;
    gpu_require();
    long handle[NK];
    for (int i = 0; i < NK; i++)
        handle[i] = gpu_get_kernel(kernels[i].program, kernels[i].name);
    int *buf = gpu_buffer(BUF);
    int outcomes[5] = { 0 }, ok = 1;
    for (int it = 0; it < iterations; it++) {
        for (int i = 0; i < BUF / 4; i++)
            buf[i] = (int)(rnd() % 64);
        unsigned dims = rnd() % 8 ? 1 + rnd() % 3 : rnd() % 5;
        size_t global[3], local[3];
        for (int d = 0; d < 3; d++) {
            local[d] = d == 0 ? 1u << (rnd() % 8) : 1u << (rnd() % 3);
            global[d] = local[d] * (1 + rnd() % 4);
            if (rnd() % 16 == 0)
                global[d] += 1 + rnd() % 7;      /* not a multiple */
        }
        struct gpu_args a = { .n = 0 };
        for (size_t off = 0; off + 8 <= sizeof a.b; off += 8) {
            uint64_t v = rnd() % 3 == 0 ? (uint64_t)(uintptr_t)(buf + rnd() % (BUF / 8))
                                        : (uint64_t)(rnd() % 64) | (uint64_t)(rnd() % 64) << 32;
            memcpy(a.b + off, &v, 8);
        }
        int k = (int)(rnd() % NK);
        size_t bytes = rnd() % 8 ? kernels[k].args : rnd() % 300;
        int rc = cgm_gpu_launch(rnd() % 32 ? handle[k] : (long)(rnd() % 100), dims, global, local,
                                a.b, bytes);
        switch (rc) {
        case 0: outcomes[0]++; break;
        case -EINVAL: outcomes[1]++; break;
        case -EFAULT: outcomes[2]++; break;
        case -EBADF: outcomes[3]++; break;
        default:
            printf("launch %d of %s: unexpected %d\n", it, kernels[k].name, rc);
            ok = 0;
        }
        if (rnd() % 4 == 0 && cgm_gpu_wait() != 0)
            ok = 0;
    }
    if (cgm_gpu_wait() != 0)
        ok = 0;
    printf("%d ran, %d refused (EINVAL), %d faulted, %d bad handles\n", outcomes[0], outcomes[1],
           outcomes[2], outcomes[3]);
    return gpu_finish(ok);
}
