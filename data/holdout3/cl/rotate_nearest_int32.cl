/* Rotate an int label map about its centre with nearest-neighbour lookup (labels must not be
 * blended). Each output pixel is mapped back into the source by the inverse rotation; pixels
 * that land outside the source get the fill label. */
__kernel void rotate_nearest_int32(const int width, const int height,
                                   const float cos_t, const float sin_t, const int fill,
                                   __global const int *labels,
                                   __global int *out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const float cx = 0.5f * (float)(width - 1);
    const float cy = 0.5f * (float)(height - 1);
    const float dx = (float)x - cx;
    const float dy = (float)y - cy;
    const float sx = cos_t * dx + sin_t * dy + cx;
    const float sy = -sin_t * dx + cos_t * dy + cy;
    const int ix = (int)floor(sx + 0.5f);
    const int iy = (int)floor(sy + 0.5f);

    int v = fill;
    if (ix >= 0 && ix < width && iy >= 0 && iy < height)
        v = labels[iy * width + ix];
    out[y * width + x] = v;
}
