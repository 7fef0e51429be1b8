/* Floyd-Warshall all-pairs shortest paths (AMD APP SDK FloydWarshall): the
 * launch for intermediate node k relaxes every pair (i, j) through k. */
__kernel void floyd_step(__global int *dist, int n, int k)
{
    int j = (int)get_global_id(0), i = (int)get_global_id(1);
    int through = dist[i * n + k] + dist[k * n + j];
    if (through < dist[i * n + j])
        dist[i * n + j] = through;
}
