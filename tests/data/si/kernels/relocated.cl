/* A program-scope pointer initialised with an address: ld.lld -shared
 * leaves its slot to an R_AMDGPU_RELATIVE64 relocation, which the loader
 * applies where the driver places the image (test_si_refuse). */
__constant int table[4] = { 11, 22, 33, 44 };
__constant int *__constant second = &table[1];

__kernel void read_through_pointer(__global int *out)
{
    size_t i = get_global_id(0);
    out[i] = second[i & 1] + (int)i;
}
