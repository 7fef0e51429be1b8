/* Breadth-first search on the GPU (seed 000 Sec. 3.3.1, after Rodinia):
 * frontier expansion and advance kernels until no node changes; the host
 * reads the flag after each wait.  Levels exact against a CPU BFS. */
#include "gpu_common.h"

enum { NN = 512, DEG = 3 };

int main(void)
{
    gpu_require();
    long ke = gpu_get_kernel("bfs", "bfs_expand"), ka = gpu_get_kernel("bfs", "bfs_advance");
    cgm_roi_begin();
    int *start = gpu_buffer((NN + 1) * 4), *edges = gpu_buffer(NN * DEG * 4);
    int *frontier = gpu_buffer(NN * 4), *next = gpu_buffer(NN * 4), *visited = gpu_buffer(NN * 4);
    int *cost = gpu_buffer(NN * 4), *go_on = gpu_buffer(4);
    for (int v = 0; v <= NN; v++)
        start[v] = v * DEG;
    for (int e = 0; e < NN * DEG; e++)  /* a ring edge keeps every node reachable */
        edges[e] = e % DEG == 0 ? (e / DEG + 1) % NN : (int)(gpu_frand() * NN);
    for (int v = 0; v < NN; v++)
        cost[v] = -1;
    frontier[0] = visited[0] = 1;
    cost[0] = 0;
    int levels = 0;
    do {
        *go_on = 0;
        struct gpu_args a = { .n = 0 };
        arg_ptr(&a, start); arg_ptr(&a, edges); arg_ptr(&a, frontier); arg_ptr(&a, next);
        arg_ptr(&a, visited); arg_ptr(&a, cost); arg_int(&a, NN);
        gpu_run(ke, 1, NN, 1, 64, 1, &a);
        struct gpu_args b = { .n = 0 };
        arg_ptr(&b, frontier); arg_ptr(&b, next); arg_ptr(&b, visited); arg_ptr(&b, go_on);
        arg_int(&b, NN);
        gpu_run(ka, 1, NN, 1, 64, 1, &b);
        cgm_gpu_wait();
        levels++;
    } while (*go_on && levels <= NN);
    cgm_roi_end();
    /* CPU BFS */
    static int ref[NN], queue[NN];
    for (int v = 0; v < NN; v++) ref[v] = -1;
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
    for (int v = 0; v < NN; v++)
        if (cost[v] != ref[v]) {
            printf("cost[%d]: GPU %d, CPU %d\n", v, cost[v], ref[v]);
            return gpu_finish(0);
        }
    printf("%d levels\n", levels);
    return gpu_finish(1);
}
