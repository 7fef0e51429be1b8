/* Reduction (AMD APP SDK Reduction): each work-item adds two elements,
 * then the work-group halves its partial sums in local memory; one sum per
 * work-group goes back to the host, which adds them. */
__kernel void reduce(__global const uint *in, __global uint *sums, __local uint *part)
{
    uint l = (uint)get_local_id(0), size = (uint)get_local_size(0);
    uint g = (uint)get_group_id(0) * size * 2 + l;
    part[l] = in[g] + in[g + size];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s /= 2) {
        if (l < s)
            part[l] += part[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        sums[get_group_id(0)] = part[0];
}
