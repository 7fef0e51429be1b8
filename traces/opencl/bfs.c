/* Breadth-first search as a plain OpenCL program: the twin of traces/gpu/
 * bfs.c (same kernels, same generated graph at the default size): expand
 * and advance until no node changes, the host reading the flag after each
 * level; levels exact against a CPU BFS. Usage: bfs [NODES (a multiple of
 * 64, default 512)]. */
#include "cl_set.h"

enum { DEG = 3 };

int main(int argc, char **argv)
{
    int nn = cl_size_arg(argc, argv, 512, 64, 1 << 22, 64, 0);
    size_t nb = (size_t)nn * 4;
    int *start = cl_alloc(nb + 4), *edges = cl_alloc(nb * DEG), *frontier = cl_alloc(nb);
    int *visited = cl_alloc(nb), *cost = cl_alloc(nb), go_on = 0;
    struct cl_env env;
    cl_setup(&env);
    cl_program prog = cl_build(&env, "bfs");
    cl_kernel ke = cl_kernel_of(prog, "bfs_expand"), ka = cl_kernel_of(prog, "bfs_advance");
    cgm_roi_begin();
    for (int v = 0; v <= nn; v++)
        start[v] = v * DEG;
    for (int e = 0; e < nn * DEG; e++)  /* a ring edge keeps every node reachable */
        edges[e] = e % DEG == 0 ? (e / DEG + 1) % nn : (int)(cl_frand() * (float)nn);
    for (int v = 0; v < nn; v++)
        cost[v] = -1;
    frontier[0] = visited[0] = 1;
    cost[0] = 0;
    const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    const cl_mem_flags io = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl_mem ms = cl_buffer(&env, in, nb + 4, start), me = cl_buffer(&env, in, nb * DEG, edges);
    cl_mem mf = cl_buffer(&env, io, nb, frontier), mv = cl_buffer(&env, io, nb, visited);
    cl_mem mc = cl_buffer(&env, io, nb, cost), mg = cl_buffer(&env, CL_MEM_READ_WRITE, 4, NULL);
    cl_mem mn = cl_buffer(&env, CL_MEM_READ_WRITE, nb, NULL);
    const int zero = 0;
    cl_check(clEnqueueFillBuffer(env.q, mn, &zero, 4, 0, nb, 0, NULL, NULL), "clEnqueueFillBuffer");
    const cl_mem eargs[6] = { ms, me, mf, mn, mv, mc }, aargs[4] = { mf, mn, mv, mg };
    for (cl_uint i = 0; i < 6; i++)
        CL_ARG(ke, i, eargs[i]);
    CL_ARG(ke, 6, nn);
    for (cl_uint i = 0; i < 4; i++)
        CL_ARG(ka, i, aargs[i]);
    CL_ARG(ka, 4, nn);
    size_t global = (size_t)nn, local = 64;
    int levels = 0;
    do {
        cl_check(clEnqueueWriteBuffer(env.q, mg, CL_FALSE, 0, 4, &zero, 0, NULL, NULL), "write");
        cl_run(&env, ke, 1, &global, &local);
        cl_run(&env, ka, 1, &global, &local);
        cl_read(&env, mg, 4, &go_on);
        levels++;
    } while (go_on && levels <= nn);
    cl_read(&env, mc, nb, cost);
    cgm_roi_end();
    int *ref = cl_alloc(nb), *queue = cl_alloc(nb);
    for (int v = 0; v < nn; v++) ref[v] = -1;
    int head = 0, tail = 0;
    ref[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int v = queue[head++];
        for (int e = start[v]; e < start[v + 1]; e++)
            if (ref[edges[e]] < 0) {
                ref[edges[e]] = ref[v] + 1;
                queue[tail++] = edges[e];
            }
    }
    int ok = 1;
    for (int v = 0; v < nn && ok; v++)
        if (cost[v] != ref[v]) {
            printf("cost[%d]: GPU %d, CPU %d\n", v, cost[v], ref[v]);
            ok = 0;
        }
    printf("%d levels\n", levels);
    return cl_finish_exact("cost", cost, nb, ok);
}
