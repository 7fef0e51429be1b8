/* An image argument links as long as no image function is called; the
 * device has no images, so the loader must refuse the kernel by name. */
__kernel void image_width(read_only image2d_t picture, __global int *out)
{
    out[get_global_id(0)] = 1;
}
