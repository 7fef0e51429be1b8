/* A call to a function no code defines: with default visibility ld.lld
 * -shared leaves it to a dynamic relocation, which the loader does not do. */
__attribute__((visibility("default"))) float mystery(float);

__kernel void calls_mystery(__global float *out)
{
    int i = get_global_id(0);
    out[i] = mystery(out[i]);
}
