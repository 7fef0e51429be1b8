/* Seed 004 Sec. 4.2.3's per-call and double-buffered transfers as a plain
 * OpenCL program: the twin of traces/gpu/double_buffer.c (the same
 * knn_distance kernel and inputs). The distances of CHUNKS x RECORDS points
 * are computed chunk by chunk through device buffers of one chunk.
 *   double_buffer blocking|nonblocking CHUNKS RECORDS
 * blocking: a blocking write of the chunk, the kernel, a blocking read of
 * its distances, chunk after chunk. nonblocking: two input buffers; the
 * next chunk's input is written with a non-blocking clEnqueueWriteBuffer
 * (the driver's asynchronous copy) while this chunk's kernel runs, and the
 * blocking read of the distances orders both. RECORDS is a multiple of 64. */
#include "cl_set.h"

int main(int argc, char **argv)
{
    int nonblocking = argc > 1 && !strcmp(argv[1], "nonblocking");
    long chunks = argc > 2 ? atol(argv[2]) : 4, n = argc > 3 ? atol(argv[3]) : 4096;
    if (argc != 4 || (!nonblocking && strcmp(argv[1], "blocking")) || chunks < 1 || n < 64 || n % 64) {
        puts("FAIL: usage: double_buffer blocking|nonblocking CHUNKS RECORDS (RECORDS a multiple of 64)");
        return 1;
    }
    size_t total = (size_t)(chunks * n);
    float *host = cl_alloc(total * 2 * sizeof *host), *dist = cl_alloc(total * sizeof *dist);
    float *want = cl_alloc(total * sizeof *want);
    const float lat = 30.0f, lng = 90.0f;
    for (size_t i = 0; i < total; i++) {
        host[2 * i] = 180.0f * cl_frand() - 90.0f;
        host[2 * i + 1] = 360.0f * cl_frand() - 180.0f;
        float dx = lat - host[2 * i], dy = lng - host[2 * i + 1];
        want[i] = sqrtf(dx * dx + dy * dy);
    }
    struct cl_env env;
    cl_setup(&env);
    cl_kernel k = cl_kernel_of(cl_build(&env, "knn"), "knn_distance");
    size_t in_bytes = (size_t)n * 2 * sizeof(float), out_bytes = (size_t)n * sizeof(float);
    cl_mem in[2] = { cl_buffer(&env, CL_MEM_READ_ONLY, in_bytes, NULL),
                     nonblocking ? cl_buffer(&env, CL_MEM_READ_ONLY, in_bytes, NULL) : NULL };
    cl_mem out = cl_buffer(&env, CL_MEM_WRITE_ONLY, out_bytes, NULL);
    const int records = (int)n, first = 0;
    size_t global = (size_t)n, local = 64;
    cgm_roi_begin();
    if (nonblocking)
        cl_check(clEnqueueWriteBuffer(env.q, in[0], CL_FALSE, 0, in_bytes, host, 0, NULL, NULL), "write");
    for (long c = 0; c < chunks; c++) {
        cl_mem cur = in[nonblocking ? c % 2 : 0];
        if (!nonblocking)
            cl_check(clEnqueueWriteBuffer(env.q, cur, CL_TRUE, 0, in_bytes, host + 2 * (size_t)(c * n), 0, NULL,
                                          NULL), "write");
        CL_ARG(k, 0, cur);
        CL_ARG(k, 1, out);
        CL_ARG(k, 2, records);
        CL_ARG(k, 3, first);
        CL_ARG(k, 4, lat);
        CL_ARG(k, 5, lng);
        cl_run(&env, k, 1, &global, &local);
        if (nonblocking && c + 1 < chunks)
            cl_check(clEnqueueWriteBuffer(env.q, in[(c + 1) % 2], CL_FALSE, 0, in_bytes,
                                          host + 2 * (size_t)((c + 1) * n), 0, NULL, NULL), "write");
        cl_read(&env, out, out_bytes, dist + (size_t)(c * n));
    }
    cl_check(clFinish(env.q), "clFinish");
    cgm_roi_end();
    return cl_finish("distance", dist, total, cl_close("distance", dist, want, total, 1e-5f));
}
