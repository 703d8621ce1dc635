/* For every point, the sum of its Euclidean distances to all points of the set.
 * Points in structure-of-arrays form (separate x, y, z arrays). */
__kernel void total_distance_soa(int n,
                                 __global const float *px,
                                 __global const float *py,
                                 __global const float *pz,
                                 __global float *total)
{
    int i = get_global_id(0);
    float xi = px[i], yi = py[i], zi = pz[i];
    float sum = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = px[j] - xi;
        float dy = py[j] - yi;
        float dz = pz[j] - zi;
        sum += sqrt(dx * dx + dy * dy + dz * dz);
    }
    total[i] = sum;
}
