/* Breadth-first search (seed 000 Sec. 3.3.1, the level-synchronous BFS of
 * Rodinia): the graph is in CSR form (edge_start[v] .. edge_start[v+1]).
 * bfs_expand visits the frontier's edges; bfs_advance makes the newly
 * reached nodes the next frontier and tells the host whether to go on. */
__kernel void bfs_expand(__global const int *edge_start, __global const int *edges,
                         __global int *frontier, __global int *next, __global const int *visited,
                         __global int *cost, int nnodes)
{
    int v = (int)get_global_id(0);
    if (v >= nnodes || !frontier[v])
        return;
    frontier[v] = 0;
    for (int e = edge_start[v]; e < edge_start[v + 1]; e++) {
        int u = edges[e];
        if (!visited[u]) {
            cost[u] = cost[v] + 1;
            next[u] = 1;
        }
    }
}

__kernel void bfs_advance(__global int *frontier, __global int *next, __global int *visited,
                          __global int *go_on, int nnodes)
{
    int v = (int)get_global_id(0);
    if (v >= nnodes || !next[v])
        return;
    frontier[v] = 1;
    visited[v] = 1;
    next[v] = 0;
    *go_on = 1;
}
