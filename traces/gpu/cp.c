/* A Parboil-cp-like program (seed 004 Table 3.3: moderate transfers both
 * ways, the atoms sent in ten chunks, the grid back once): the coulombic
 * potential on a G x G plane of a grid of CHUNKS x ATOMS charged atoms
 * (cp.cl). For each chunk the CPU writes its atoms into the GPU's atom
 * buffer and the kernel adds their potential to the grid; after the last
 * the CPU reads the grid.
 *   cp [G (multiple of 16, default 64)] [CHUNKS (default 10)] [ATOMS (default 16)] [share|copy (default share)] [CHECK (default 1)]
 * The region of interest is the chunks and the read of the grid; CHECK 0
 * leaves out the CPU's check (every 61st point recomputed). */
#include "movement_common.h"

#define SPACING 0.5f

struct atom {
    float x, y, z, q;
};

int main(int argc, char **argv)
{
    gpu_require();
    int gx = argc > 1 ? atoi(argv[1]) : 64, chunks = argc > 2 ? atoi(argv[2]) : 10;
    int natoms = argc > 3 ? atoi(argv[3]) : 16;
    int share = argc > 4 ? mv_mode(argv[4]) : 1, check = argc > 5 ? atoi(argv[5]) : 1;
    if (argc > 6 || gx < 16 || gx % 16 || chunks < 1 || natoms < 1 || share < 0) {
        puts("FAIL: usage: cp [G (a multiple of 16)] [CHUNKS] [ATOMS] [share|copy] [CHECK]");
        return 1;
    }
    long k = gpu_get_kernel("cp", "cp_chunk");
    size_t points = (size_t)gx * gx, abytes = (size_t)natoms * sizeof(struct atom);
    struct mv_buffer A, G;
    struct atom *chunk = mv_alloc(&A, abytes, share);
    float *grid = mv_alloc(&G, points * sizeof(float), share);
    struct atom *all = malloc((size_t)chunks * abytes); /* the input file's atoms */
    if (!all)
        gpu_die("malloc", 0);
    float side = SPACING * (float)gx;
    for (long i = 0; i < (long)chunks * natoms; i++)
        all[i] = (struct atom){ side * gpu_frand(), side * gpu_frand(), SPACING * (1.0f + 4.0f * gpu_frand()),
                                2.0f * gpu_frand() - 1.0f };
    for (size_t i = 0; i < points; i++)
        grid[i] = 0.0f;
    mv_to_gpu(&G, G.bytes);
    double sum = 0;
    cgm_roi_begin();
    for (int c = 0; c < chunks; c++) {
        for (int a = 0; a < natoms; a++)
            chunk[a] = all[(size_t)c * natoms + a];
        mv_to_gpu(&A, abytes);
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, A.dev);
        arg_ptr(&g, G.dev);
        arg_int(&g, natoms);
        arg_int(&g, gx);
        arg_float(&g, SPACING);
        arg_float(&g, 0.0f);
        gpu_run(k, 2, (size_t)gx, (size_t)gx, 16, 16, &g);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
    }
    mv_to_cpu(&G);
    for (size_t i = 0; i < points; i++)
        sum += grid[i];
    cgm_roi_end();
    if (!check)
        return gpu_finish(sum == sum);
    int ok = 1;
    for (size_t i = 0; i < points && ok; i += 61) {
        float px = SPACING * (float)(i % (size_t)gx), py = SPACING * (float)(i / (size_t)gx), want = 0.0f;
        for (int c = 0; c < chunks; c++) {
            float e = 0.0f;
            for (int a = 0; a < natoms; a++) {
                const struct atom *at = &all[(size_t)c * natoms + a];
                float dx = px - at->x, dy = py - at->y, dz = 0.0f - at->z;
                e += at->q / sqrtf(dx * dx + dy * dy + dz * dz);
            }
            want += e;
        }
        ok = gpu_close("grid", &grid[i], &want, 1, 1e-4f);
    }
    return gpu_finish(ok);
}
