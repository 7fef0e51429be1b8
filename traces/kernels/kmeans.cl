/* k-means (seed 000 Sec. 3.3.1, after Rodinia's kmeans): the transpose of the
 * feature matrix for coalesced reads, and the assignment of every point to
 * its nearest cluster centre. */
__kernel void kmeans_swap(__global const float *feature, __global float *feature_t,
                          int npoints, int nfeatures)
{
    int p = (int)get_global_id(0);
    if (p >= npoints)
        return;
    for (int f = 0; f < nfeatures; f++)
        feature_t[f * npoints + p] = feature[p * nfeatures + f];
}

/* feature_t is nfeatures x npoints; clusters is nclusters x nfeatures. */
__kernel void kmeans_assign(__global const float *feature_t, __global const float *clusters,
                            __global int *membership, int npoints, int nclusters, int nfeatures)
{
    int p = (int)get_global_id(0);
    if (p >= npoints)
        return;
    int best = 0;
    float best_dist = FLT_MAX;
    for (int c = 0; c < nclusters; c++) {
        float dist = 0.0f;
        for (int f = 0; f < nfeatures; f++) {
            float d = feature_t[f * npoints + p] - clusters[c * nfeatures + f];
            dist += d * d;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    membership[p] = best;
}
