/* Grey-scale morphological erosion of an 8-bit image by a (2r+1) x (2r+1) square: every output
 * pixel is the minimum of its neighbourhood. The window is cut at the image border (outside
 * pixels take no part). Once the minimum reaches 0 it cannot fall further, so the scan stops. */
__kernel void erode_square_uchar(const int width, const int height, const int radius,
                                 __global const uchar *src,
                                 __global uchar *dst)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int x0 = max(x - radius, 0);
    const int x1 = min(x + radius, width - 1);
    const int y0 = max(y - radius, 0);
    const int y1 = min(y + radius, height - 1);

    uchar m = 255;
    for (int yy = y0; yy <= y1 && m > 0; yy++) {
        __global const uchar *row = src + yy * width;
        for (int xx = x0; xx <= x1; xx++)
            m = min(m, row[xx]);
    }
    dst[y * width + x] = m;
}
