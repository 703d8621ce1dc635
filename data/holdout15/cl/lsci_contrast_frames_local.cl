/* Laser speckle contrast imaging (LSCI): spatial speckle contrast K = sigma / mean of the raw intensity over a
 * (2 r + 1)^2 window around each pixel, averaged over nframe consecutive camera frames. Frames are nx x ny 12-bit
 * counts stored one per uint32, frame-major. A work-group of the 2-D NDRange stages its tile plus an r-pixel halo
 * (edge pixels replicated) of each frame in __local memory, then every item sums the counts and squared counts
 * of its window exactly in uint32 (49 * 4095^2 fits) and forms K in float; dark windows give K = 0. The mean
 * contrast over the frames is written (its inverse square is the usual blood-flow index). */

__kernel void lsci_contrast_frames_local(const int nx, const int ny, const int nframe, const int r,
                                         __global const uint *frames,
                                         __global float *kmean,
                                         __local uint *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int wx = get_local_size(0), wy = get_local_size(1);
    const int x = get_global_id(0), y = get_global_id(1);
    const int x0 = get_group_id(0) * wx - r, y0 = get_group_id(1) * wy - r;
    const int tw = wx + 2 * r, th = wy + 2 * r;
    const int nwin = (2 * r + 1) * (2 * r + 1);
    const size_t plane = (size_t)nx * ny;

    float ksum = 0.0f;
    for (int f = 0; f < nframe; f++) {
        __global const uint *img = frames + f * plane;
        for (int t = ly * wx + lx; t < tw * th; t += wx * wy) {
            const int gx = clamp(x0 + t % tw, 0, nx - 1);
            const int gy = clamp(y0 + t / tw, 0, ny - 1);
            tile[t] = img[(size_t)gy * nx + gx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        uint s1 = 0, s2 = 0;
        for (int dy = 0; dy <= 2 * r; dy++) {
            const int row = (ly + dy) * tw + lx;
            for (int dx = 0; dx <= 2 * r; dx++) {
                const uint v = tile[row + dx];
                s1 += v;
                s2 += v * v;
            }
        }
        if (s1 > 0) {
            const float mean = (float)s1 / nwin;
            const float var = fmax((float)s2 / nwin - mean * mean, 0.0f);
            ksum += sqrt(var) / mean;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (x < nx && y < ny)
        kmean[(size_t)y * nx + x] = ksum / nframe;
}
