/* Horizontal pass of a separable Gaussian blur. Each work-group row copies its strip of the
 * image plus a halo of `radius` pixels on both sides into local memory (edges clamped), then
 * every work-item weighs 2*radius+1 neighbours with exp(-k^2 / 2 sigma^2), normalised. */
__kernel void gauss_row_halo_local(const int width, const int height,
                                   const int radius, const float sigma,
                                   __global const float *src,
                                   __global float *dst,
                                   __local float *tile)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int lw = get_local_size(0);
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int span = lw + 2 * radius;
    __local float *row = tile + ly * span;

    /* every work-item helps with the load, even those past the image, so the barrier is uniform */
    const int yc = min(y, height - 1);
    const int x0 = get_group_id(0) * lw - radius;
    for (int t = lx; t < span; t += lw) {
        const int xs = clamp(x0 + t, 0, width - 1);
        row[t] = src[yc * width + xs];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x >= width || y >= height)
        return;

    const float scale = -0.5f / (sigma * sigma);
    float acc = 0.0f;
    float wsum = 0.0f;
    for (int k = -radius; k <= radius; k++) {
        const float w = exp((float)(k * k) * scale);
        acc += w * row[lx + radius + k];
        wsum += w;
    }
    dst[y * width + x] = acc / wsum;
}
