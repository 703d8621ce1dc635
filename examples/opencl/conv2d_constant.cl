// 2D convolution with the filter in __constant memory; FILTER_RADIUS set at build time (default 2).
#ifndef FILTER_RADIUS
#define FILTER_RADIUS 2
#endif
#define FILTER_WIDTH (2 * FILTER_RADIUS + 1)
#define CLAMP(v, lo, hi) min(max((v), (lo)), (hi))

__kernel void conv2d(__global const float *image, __constant float *filter,
                     __global float *result, const int width, const int height)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    float sum = 0.0f;
    for (int fy = -FILTER_RADIUS; fy <= FILTER_RADIUS; fy++) {
        for (int fx = -FILTER_RADIUS; fx <= FILTER_RADIUS; fx++) {
            const int ix = CLAMP(x + fx, 0, width - 1);
            const int iy = CLAMP(y + fy, 0, height - 1);
            sum += image[iy * width + ix] * filter[(fy + FILTER_RADIUS) * FILTER_WIDTH + fx + FILTER_RADIUS];
        }
    }
    result[y * width + x] = sum;
}
