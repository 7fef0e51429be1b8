/* Breadth-first search (Rodinia-style): level-synchronous over a random
 * graph, frontier nodes split among threads. Usage: bfs [THREADS]. */
#include <string.h>

#include "rodinia_common.h"

enum { NODES = 65536, DEG = 6 };
static int edge_start[NODES + 1], edges[NODES * DEG], cost[NODES];
static unsigned char mask[NODES], next_mask[NODES], visited[NODES];
static int more[MAX_THREADS], any_more;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    long lo, hi;
    split(NODES, id, &lo, &hi);
    for (;;) {
        for (long n = lo; n < hi; n++) {
            if (!mask[n])
                continue;
            mask[n] = 0;
            for (int e = edge_start[n]; e < edge_start[n + 1]; e++) {
                int m = edges[e];
                if (!visited[m]) {
                    cost[m] = cost[n] + 1;
                    next_mask[m] = 1;
                }
            }
        }
        pthread_barrier_wait(&barrier);
        more[id] = 0;
        for (long n = lo; n < hi; n++)
            if (next_mask[n]) {
                mask[n] = visited[n] = 1;
                next_mask[n] = 0;
                more[id] = 1;
            }
        pthread_barrier_wait(&barrier);
        if (id == 0) {
            any_more = 0;
            for (int t = 0; t < nthreads; t++)
                any_more |= more[t];
        }
        pthread_barrier_wait(&barrier);
        if (!any_more)
            return NULL;
    }
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    int k = 0;
    for (int n = 0; n < NODES; n++) {
        edge_start[n] = k;
        int deg = 1 + (int)(lcg() % DEG);
        edges[k++] = (n + 1) % NODES; /* keeps the graph connected */
        for (int d = 1; d < deg; d++)
            edges[k++] = (int)(lcg() % NODES);
        cost[n] = -1;
    }
    edge_start[NODES] = k;
    cost[0] = 0;
    mask[0] = visited[0] = 1;
    run_parallel(worker);
    long sum = 0;
    int maxc = 0;
    for (int n = 0; n < NODES; n++) {
        sum += (long)cost[n] * (n % 17 + 1);
        if (cost[n] > maxc)
            maxc = cost[n];
    }
    printf("bfs %d nodes threads %d depth %d checksum %ld\n", NODES, nthreads, maxc, sum);
    return 0;
}
