/* k-nearest neighbour (seed 000 Sec. 3.3.2.4, after Rodinia's nn): the
 * distance of every record (latitude, longitude) to the query point, for the
 * records [first, first + grid size); the host selects the k smallest. */
__kernel void knn_distance(__global const float2 *records, __global float *distance,
                           int nrecords, int first, float lat, float lng)
{
    int i = first + (int)get_global_id(0);
    if (i >= nrecords)
        return;
    float2 r = records[i];
    distance[i] = sqrt((lat - r.x) * (lat - r.x) + (lng - r.y) * (lng - r.y));
}
