/* A sampler argument: refused by name like an image. */
__kernel void takes_sampler(sampler_t how, __global int *out)
{
    out[get_global_id(0)] = 2;
}
