/* k-means assignment step: each point (dim floats, row-major) gets the index of its
 * nearest centroid (squared Euclidean distance; the first one wins ties). */
__kernel void kmeans_assign(int npoints, int nclusters, int dim,
                            __global const float *points,
                            __global const float *centroids,
                            __global int *membership)
{
    int p = get_global_id(0);
    if (p >= npoints)
        return;

    int best = 0;
    float best_dist = FLT_MAX;
    for (int c = 0; c < nclusters; c++) {
        float dist = 0.0f;
        for (int d = 0; d < dim; d++) {
            float diff = points[p * dim + d] - centroids[c * dim + d];
            dist += diff * diff;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    membership[p] = best;
}
