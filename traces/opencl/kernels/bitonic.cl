/* Bitonic sort (AMD APP SDK BitonicSort): one compare-and-swap step of the
 * network per launch; work-item i pairs with i ^ j and keeps the pair in the
 * order its block of size k wants. */
__kernel void bitonic_step(__global uint *data, uint j, uint k)
{
    uint i = (uint)get_global_id(0), p = i ^ j;
    if (p <= i)
        return;
    uint a = data[i], b = data[p];
    int up = (i & k) == 0;
    if (up ? a > b : a < b) {
        data[i] = b;
        data[p] = a;
    }
}
