/* Write (seed 000 Sec. 3.3.2.5): every element of the GPU's part
 * [first, first + grid size) of the array gets a value, as fast as the
 * memory system takes it. */
__kernel void write_array(__global int *data, int first, int value)
{
    int i = first + (int)get_global_id(0);
    data[i] = value + i;
}
