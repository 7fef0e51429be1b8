/* Linked-list sorting in seed 004 Sec. 4.2's three data transfer models:
 * a list of N nodes with random keys is marshalled into a vector of
 * (key, node) pairs, merge-sorted on the GPU (llsort.cl, one launch per
 * pass) and the list rebuilt (unmarshalled) in the sorted order.
 *   llsort percall|double|hosted [N (default 4096)] [TILES (default 8)]
 * percall: the list and the vector in host memory; the vector is copied to
 * the GPU, sorted and copied back, and the CPU relinks the list.
 * double: as percall, in TILES tiles: each tile is copied asynchronously
 * while the CPU marshals the next, and the sorted vector comes back a tile
 * at a time while the CPU relinks the one before (Listing 4.3).
 * hosted: the list and the vector live in GPU buffers shared by pointer
 * (the accelerator-hosted model): no copies; the GPU relinks the list.
 * The region of interest is the sorting function (marshal, transfers, sort,
 * unmarshal); the list is built before it and checked after it (every node
 * once, keys in order). */
#include "gpu_common.h"

struct ll_node {
    float key;
    uint32_t index;
    struct ll_node *next;
};
_Static_assert(sizeof(struct ll_node) == 16, "the kernel's ll_node is 16 bytes");

struct pair {
    uint32_t key, node; /* the key's bits (keys are non-negative) */
};

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Marshals COUNT pairs from *AT into OUT; returns the node after them. */
static struct ll_node *marshal(struct ll_node *at, struct pair *out, long count)
{
    for (long i = 0; i < count; i++, at = at->next)
        out[i] = (struct pair){ bits(at->key), at->index };
    return at;
}

/* Relinks the nodes of pairs [FROM, TO) of V, the node of pair TO - 1 to
 * that of pair TO when TO < N. */
static void unmarshal(struct ll_node *nodes, const struct pair *v, long from, long to, long n)
{
    for (long i = from; i < to; i++)
        nodes[v[i].node].next = i + 1 < n ? &nodes[v[i + 1].node] : NULL;
}

/* The merge sort's passes from A (the result in A or B, returned). */
static struct pair *gpu_sort(long k, struct pair *a, struct pair *b, long n)
{
    size_t global = (size_t)(n + 63) / 64 * 64;
    for (long w = 1; w < n; w *= 2) {
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, a);
        arg_ptr(&g, b);
        arg_int(&g, (int)n);
        arg_int(&g, (int)w);
        gpu_run(k, 1, global, 1, 64, 1, &g);
        struct pair *t = a;
        a = b;
        b = t;
    }
    return a;
}

int main(int argc, char **argv)
{
    gpu_require();
    const char *mode = argc > 1 ? argv[1] : "";
    int percall = !strcmp(mode, "percall"), twin = !strcmp(mode, "double"), hosted = !strcmp(mode, "hosted");
    long n = argc > 2 ? atol(argv[2]) : 4096, tiles = argc > 3 ? atol(argv[3]) : 8;
    if (argc < 2 || argc > 4 || !(percall || twin || hosted) || n < 2 || n > (1L << 30) || tiles < 1 ||
        n % tiles) {
        puts("FAIL: usage: llsort percall|double|hosted [N] [TILES (dividing N)]");
        return 1;
    }
    long sort = gpu_get_kernel("llsort", "merge_pass"), relink = gpu_get_kernel("llsort", "relink");
    size_t vbytes = (size_t)n * sizeof(struct pair);
    struct ll_node *nodes = hosted ? gpu_buffer((size_t)n * sizeof *nodes) : malloc((size_t)n * sizeof *nodes);
    struct pair *host = hosted ? NULL : malloc(vbytes);
    struct pair *dev[2] = { gpu_buffer(vbytes), gpu_buffer(vbytes) };
    if (!nodes || (!hosted && !host))
        gpu_die("malloc", 0);
    /* the list in allocation order, random keys in [0, 1) */
    for (long i = 0; i < n; i++)
        nodes[i] = (struct ll_node){ gpu_frand(), (uint32_t)i, i + 1 < n ? &nodes[i + 1] : NULL };
    struct ll_node *head;
    cgm_roi_begin();
    if (percall) {
        marshal(nodes, host, n);
        cgm_gpu_copy(dev[0], host, vbytes);
        struct pair *sorted = gpu_sort(sort, dev[0], dev[1], n);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
        cgm_gpu_copy(host, sorted, vbytes);
        unmarshal(nodes, host, 0, n, n);
        head = &nodes[host[0].node];
    } else if (twin) {
        long t = n / tiles;
        size_t tbytes = (size_t)t * sizeof(struct pair);
        struct ll_node *at = nodes;
        for (long i = 0; i < tiles; i++) {
            at = marshal(at, host + i * t, t);
            cgm_gpu_copy_async(dev[0] + i * t, host + i * t, tbytes);
        }
        struct pair *sorted = gpu_sort(sort, dev[0], dev[1], n);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
        cgm_gpu_copy_async(host, sorted, tbytes);
        for (long i = 0; i < tiles; i++) {
            cgm_gpu_wait(); /* tile i is back */
            if (i + 1 < tiles)
                cgm_gpu_copy_async(host + (i + 1) * t, sorted + (i + 1) * t, tbytes);
            if (i)
                unmarshal(nodes, host, i * t - 1, i * t, n); /* the last node of tile i - 1 */
            unmarshal(nodes, host, i * t, (i + 1) * t - 1, n);
        }
        nodes[host[n - 1].node].next = NULL;
        head = &nodes[host[0].node];
    } else {
        marshal(nodes, dev[0], n);
        struct pair *sorted = gpu_sort(sort, dev[0], dev[1], n);
        struct gpu_args g = { .n = 0 };
        arg_ptr(&g, sorted);
        arg_ptr(&g, nodes);
        arg_int(&g, (int)n);
        gpu_run(relink, 1, (size_t)(n + 63) / 64 * 64, 1, 64, 1, &g);
        if (cgm_gpu_wait() < 0)
            gpu_die("wait", 0);
        head = &nodes[sorted[0].node];
    }
    cgm_roi_end();
    /* every node once, in key order */
    unsigned char *seen = calloc((size_t)n, 1);
    if (!seen)
        gpu_die("malloc", 0);
    long count = 0;
    int ok = 1;
    for (struct ll_node *p = head; p && ok; p = p->next, count++) {
        ok = count < n && p->index < (uint32_t)n && !seen[p->index] && (!p->next || p->key <= p->next->key);
        if (ok)
            seen[p->index] = 1;
    }
    if (!ok || count != n)
        printf("list: %ld of %ld nodes in order\n", count, n);
    return gpu_finish(ok && count == n);
}
