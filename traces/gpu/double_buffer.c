/* Seed 004 Sec. 4.2.3's per-call and double-buffered data transfers: the
 * distances of CHUNKS x RECORDS points (knn_distance) computed chunk by
 * chunk through GPU buffers of one chunk, copying each chunk's input in
 * and its distances out.
 *   double_buffer single|double CHUNKS RECORDS
 * single: copy in, run, wait, copy out, chunk after chunk. double: two
 * input buffers; the next chunk's input is copied asynchronously
 * (cgm_gpu_copy_async) while the kernel of this one runs. RECORDS is a
 * multiple of 64. */
#include "gpu_common.h"

int main(int argc, char **argv)
{
    gpu_require();
    int twin = argc > 1 && !strcmp(argv[1], "double");
    long chunks = argc > 2 ? atol(argv[2]) : 4, n = argc > 3 ? atol(argv[3]) : 4096;
    if (argc != 4 || (!twin && strcmp(argv[1], "single")) || chunks < 1 || n < 64 || n % 64) {
        puts("FAIL: usage: double_buffer single|double CHUNKS RECORDS (RECORDS a multiple of 64)");
        return 1;
    }
    long k = gpu_get_kernel("knn", "knn_distance");
    size_t total = (size_t)(chunks * n);
    float *host = malloc(total * 2 * sizeof *host), *dist = malloc(total * sizeof *dist);
    float *want = malloc(total * sizeof *want);
    if (!host || !dist || !want)
        gpu_die("malloc", 0);
    const float lat = 30.0f, lng = 90.0f;
    for (size_t i = 0; i < total; i++) {
        host[2 * i] = 180.0f * gpu_frand() - 90.0f;
        host[2 * i + 1] = 360.0f * gpu_frand() - 180.0f;
        float dx = lat - host[2 * i], dy = lng - host[2 * i + 1];
        want[i] = sqrtf(dx * dx + dy * dy);
    }
    size_t in_bytes = (size_t)n * 2 * sizeof(float), out_bytes = (size_t)n * sizeof(float);
    float *in[2] = { gpu_buffer(in_bytes), twin ? gpu_buffer(in_bytes) : NULL }, *out = gpu_buffer(out_bytes);
    cgm_roi_begin();
    if (twin)
        cgm_gpu_copy_async(in[0], host, in_bytes);
    for (long c = 0; c < chunks; c++) {
        float *cur = in[twin ? c % 2 : 0];
        if (!twin)
            cgm_gpu_copy(cur, host + 2 * (size_t)(c * n), in_bytes);
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, cur);
        arg_ptr(&a, out);
        arg_int(&a, (int)n);
        arg_int(&a, 0);
        arg_float(&a, lat);
        arg_float(&a, lng);
        gpu_run(k, 1, (size_t)n, 1, 64, 1, &a);
        if (twin && c + 1 < chunks)
            cgm_gpu_copy_async(in[(c + 1) % 2], host + 2 * (size_t)((c + 1) * n), in_bytes);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
        cgm_gpu_copy(dist + (size_t)(c * n), out, out_bytes);
    }
    cgm_roi_end();
    int ok = gpu_close("distance", dist, want, total, 1e-5f);
    free(host);
    free(dist);
    free(want);
    return gpu_finish(ok);
}
