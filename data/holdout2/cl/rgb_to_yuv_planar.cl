/* Interleaved float RGB (three floats per pixel, as read from a PPM file) to planar Y, U and V
 * (BT.601 analogue YUV): one work-item per pixel, three strided loads, three unit-stride stores. */
__kernel void rgb_to_yuv_planar(const int width, const int height,
                                __global const float *rgb,
                                __global float *y_plane,
                                __global float *u_plane,
                                __global float *v_plane)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int p = y * width + x;
    const float r = rgb[3 * p + 0];
    const float g = rgb[3 * p + 1];
    const float b = rgb[3 * p + 2];

    const float luma = 0.299f * r + 0.587f * g + 0.114f * b;
    y_plane[p] = luma;
    u_plane[p] = 0.492f * (b - luma);
    v_plane[p] = 0.877f * (r - luma);
}
