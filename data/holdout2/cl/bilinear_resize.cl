/* Resize a single-channel float image from sw x sh to dw x dh pixels with bilinear interpolation.
 * Pixel centres are aligned (the half-pixel convention) and source coordinates clamp to the edge. */
__kernel void bilinear_resize(const int sw, const int sh, const int dw, const int dh,
                              __global const float *src,
                              __global float *dst)
{
    const int dx = get_global_id(0);
    const int dy = get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;

    const float scale_x = (float)sw / (float)dw;
    const float scale_y = (float)sh / (float)dh;
    const float fx = clamp(((float)dx + 0.5f) * scale_x - 0.5f, 0.0f, (float)(sw - 1));
    const float fy = clamp(((float)dy + 0.5f) * scale_y - 0.5f, 0.0f, (float)(sh - 1));
    const int x0 = (int)fx;
    const int y0 = (int)fy;
    const int x1 = min(x0 + 1, sw - 1);
    const int y1 = min(y0 + 1, sh - 1);
    const float ax = fx - (float)x0;
    const float ay = fy - (float)y0;

    const float top = (1.0f - ax) * src[y0 * sw + x0] + ax * src[y0 * sw + x1];
    const float bottom = (1.0f - ax) * src[y1 * sw + x0] + ax * src[y1 * sw + x1];
    dst[dy * dw + dx] = (1.0f - ay) * top + ay * bottom;
}
