/* Prefix sum (AMD APP SDK PrefixSum): an exclusive scan of each work-group's
 * elements in local memory (Hillis-Steele, one element per work-item), the
 * group's total written out; scan_add adds the scanned totals of the level
 * above to every element of a group. */
__kernel void scan_block(__global const uint *in, __global uint *out, __global uint *totals,
                         uint n, __local uint *t)
{
    uint l = (uint)get_local_id(0), size = (uint)get_local_size(0), g = (uint)get_global_id(0);
    uint v = g < n ? in[g] : 0;
    t[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < size; off *= 2) {
        uint x = l >= off ? t[l - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        t[l] += x;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (g < n)
        out[g] = t[l] - v;
    if (l == size - 1)
        totals[get_group_id(0)] = t[l];
}

__kernel void scan_add(__global uint *out, __global const uint *offsets, uint n)
{
    uint g = (uint)get_global_id(0);
    if (g < n)
        out[g] += offsets[get_group_id(0)];
}
