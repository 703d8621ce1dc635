/* Sobel edge magnitude of an 8-bit greyscale image, |Gx| + |Gy| saturated to 255.
 * Pixels outside the image repeat the nearest edge pixel. */
int px(__global const uchar *img, int x, int y, int w, int h)
{
    x = clamp(x, 0, w - 1);
    y = clamp(y, 0, h - 1);
    return (int)img[y * w + x];
}

__kernel void sobel_l1_uchar(int width, int height,
                             __global const uchar *src, __global uchar *dst)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    int gx = -px(src, x - 1, y - 1, width, height) + px(src, x + 1, y - 1, width, height)
             - 2 * px(src, x - 1, y, width, height) + 2 * px(src, x + 1, y, width, height)
             - px(src, x - 1, y + 1, width, height) + px(src, x + 1, y + 1, width, height);
    int gy = -px(src, x - 1, y - 1, width, height) - 2 * px(src, x, y - 1, width, height)
             - px(src, x + 1, y - 1, width, height) + px(src, x - 1, y + 1, width, height)
             + 2 * px(src, x, y + 1, width, height) + px(src, x + 1, y + 1, width, height);
    int mag = abs(gx) + abs(gy);
    dst[y * width + x] = (uchar)min(mag, 255);
}
