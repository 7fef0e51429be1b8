/* Back-propagation (seed 000 Sec. 3.3.1, after Rodinia's backprop): one
 * layer's forward pass, each work-group summing a 16-row block of
 * weight*input products in LDS, and the weight adjustment with momentum. */
#define BP_BLOCK 16
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f

/* Grid (hid, in): work-item (j, i) multiplies weight w[i+1][j+1] by input
 * x[i+1]; the group reduces its 16 rows and writes one partial sum per hidden
 * unit: partial[group_y * hid + j]. */
__kernel void bp_layerforward(__global const float *x, __global const float *w,
                              __global float *partial, __local float *inputs,
                              __local float *products, int hid)
{
    int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    int j = (int)get_global_id(0), i = (int)get_global_id(1);
    if (tx == 0)
        inputs[ty] = x[i + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    products[ty * BP_BLOCK + tx] = w[(i + 1) * (hid + 1) + j + 1] * inputs[ty];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = BP_BLOCK / 2; stride > 0; stride /= 2) {
        if (ty < stride)
            products[ty * BP_BLOCK + tx] += products[(ty + stride) * BP_BLOCK + tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ty == 0)
        partial[get_group_id(1) * hid + j] = products[tx];
}

/* Grid (hid, in): w[i+1][j+1] += eta * delta[j+1] * x[i+1] + momentum * old;
 * row 0 (the bias weights) is adjusted by the work-items of row i == 0. */
__kernel void bp_adjust_weights(__global const float *delta, __global const float *x,
                                __global float *w, __global float *oldw, int hid)
{
    int j = (int)get_global_id(0), i = (int)get_global_id(1);
    int k = (i + 1) * (hid + 1) + j + 1;
    float change = BP_ETA * delta[j + 1] * x[i + 1] + BP_MOMENTUM * oldw[k];
    w[k] += change;
    oldw[k] = change;
    if (i == 0) {
        float bias = BP_ETA * delta[j + 1] + BP_MOMENTUM * oldw[j + 1];
        w[j + 1] += bias;
        oldw[j + 1] = bias;
    }
}
