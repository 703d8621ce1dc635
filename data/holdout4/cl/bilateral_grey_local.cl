/* Bilateral filter of a grey float image. Each output pixel is the average of its (2r+1)^2
 * neighbourhood weighted by a Gaussian of the distance (spatial weight) times a Gaussian of the
 * intensity difference to the centre (range weight), so noise is smoothed but edges are kept.
 * The spatial weights do not depend on the pixel: every work-group first fills a table of them
 * in local memory. Neighbours outside the image are clamped to the edge. */
__kernel void bilateral_grey_local(const int width, const int height, const int radius,
                                   const float sigma_s, const float sigma_r,
                                   __global const float *src,
                                   __global float *dst,
                                   __local float *spatial)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int diam = 2 * radius + 1;

    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int nlocal = get_local_size(0) * get_local_size(1);
    const float ks = -0.5f / (sigma_s * sigma_s);
    for (int t = lid; t < diam * diam; t += nlocal) {
        const int dx = t % diam - radius;
        const int dy = t / diam - radius;
        spatial[t] = exp((float)(dx * dx + dy * dy) * ks);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x >= width || y >= height)
        return;

    const float kr = -0.5f / (sigma_r * sigma_r);
    const float centre = src[y * width + x];
    float acc = 0.0f;
    float wsum = 0.0f;
    for (int dy = -radius; dy <= radius; dy++) {
        const int yy = clamp(y + dy, 0, height - 1);
        __local const float *wrow = spatial + (dy + radius) * diam + radius;
        for (int dx = -radius; dx <= radius; dx++) {
            const float v = src[yy * width + clamp(x + dx, 0, width - 1)];
            const float diff = v - centre;
            const float w = wrow[dx] * exp(diff * diff * kr);
            acc += w * v;
            wsum += w;
        }
    }
    dst[y * width + x] = acc / wsum;
}
