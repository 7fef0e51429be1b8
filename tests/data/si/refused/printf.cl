/* OpenCL 1.2 printf: links (its buffer pointer is left to the loader), so
 * the loader must refuse it by name. */
__kernel void print_ids(__global int *out)
{
    int i = get_global_id(0);
    printf("work-item %d\n", i);
    out[i] = i;
}
