/* Weighted Gaussian kernel density estimate of claim sizes (log scale) on a regular grid.
 * One grid point per work-item; the samples and their exposure weights are staged through __local
 * memory a tile at a time, every item of the group summing the tile's contributions to its own point.
 * Contributions further than 6 bandwidths away are skipped. Items past the grid's end still help
 * to load the tiles and only skip the store. */
#define TILE 256

__kernel void kde_weighted_local(const int ngrid, const int nsamp, const float lo, const float dx, const float h,
                                 __global const float *samples,
                                 __global const float *wts,
                                 __global float *density,
                                 __local float *xs,
                                 __local float *ws)
{
    const int g = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const float x = lo + dx * (float)g;
    const float inv_h = 1.0f / h;

    float acc = 0.0f;
    for (int base = 0; base < nsamp; base += TILE) {
        const int n = min(TILE, nsamp - base);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < n; j += lsz) {
            xs[j] = samples[base + j];
            ws[j] = wts[base + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < n; j++) {
            const float u = (x - xs[j]) * inv_h;
            if (fabs(u) < 6.0f)
                acc += ws[j] * exp(-0.5f * u * u);
        }
    }
    if (g < ngrid)
        density[g] = acc * inv_h * 0.3989422804f / (float)nsamp;
}
