/* The linked-list sort of seed 004 Sec. 4.2: a merge sort of (key, node)
 * pairs and, for the accelerator-hosted model, the list rebuilt on the GPU.
 * Keys are non-negative floats, so their bits order as unsigned integers. */

/* One pass of the merge sort: the runs of WIDTH pairs of IN, sorted, are
 * merged two by two into OUT. Each pair finds its place by counting the
 * other run's pairs before it (binary search): a left pair goes before
 * equal keys of the right run, so the sort is stable. */
__kernel void merge_pass(__global const uint2 *in, __global uint2 *out, int n, int width)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int start = i / (2 * width) * (2 * width);
    int mid = min(start + width, n), end = min(start + 2 * width, n);
    uint2 p = in[i];
    bool left = i < mid;
    int lo = left ? mid : start, hi = left ? end : mid;
    /* the first pair of [lo, hi) that goes after p */
    while (lo < hi) {
        int m = (lo + hi) / 2;
        uint k = in[m].x;
        if (left ? k < p.x : k <= p.x)
            lo = m + 1;
        else
            hi = m;
    }
    int before = lo - (left ? mid : start);
    out[start + (i - (left ? start : mid)) + before] = p;
}

struct ll_node {
    float key;
    uint index;
    __global struct ll_node *next;
};

/* Unmarshalling on the GPU: node PAIRS[i].y points to node PAIRS[i+1].y. */
__kernel void relink(__global const uint2 *pairs, __global struct ll_node *nodes, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    nodes[pairs[i].y].next = i + 1 < n ? &nodes[pairs[i + 1].y] : 0;
}
