/* Demosaic an 8-bit RGGB Bayer mosaic into interleaved RGB by bilinear interpolation.
 * Even rows hold R G R G ..., odd rows G B G B ... Every pixel keeps its own sample and averages
 * the 2 or 4 nearest samples of the other two colours. At the borders the coordinates are
 * mirrored (-1 -> 1), which keeps the colour of the neighbour right for even image sizes. */
int mirror(int v, int n)
{
    if (v < 0)
        return -v;
    if (v >= n)
        return 2 * n - 2 - v;
    return v;
}

#define RAW(px, py) ((int)raw[mirror(py, height) * width + mirror(px, width)])

__kernel void bayer_rggb_bilinear(const int width, const int height,
                                  __global const uchar *raw,
                                  __global uchar *rgb)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int c = RAW(x, y);
    const int horiz = RAW(x - 1, y) + RAW(x + 1, y);
    const int vert = RAW(x, y - 1) + RAW(x, y + 1);
    const int diag = RAW(x - 1, y - 1) + RAW(x + 1, y - 1) + RAW(x - 1, y + 1) + RAW(x + 1, y + 1);
    const int cross = horiz + vert;

    int r, g, b;
    if ((y & 1) == 0) {
        if ((x & 1) == 0) {        /* red site */
            r = c;
            g = (cross + 2) >> 2;
            b = (diag + 2) >> 2;
        } else {                   /* green site on a red row */
            r = (horiz + 1) >> 1;
            g = c;
            b = (vert + 1) >> 1;
        }
    } else {
        if ((x & 1) == 0) {        /* green site on a blue row */
            r = (vert + 1) >> 1;
            g = c;
            b = (horiz + 1) >> 1;
        } else {                   /* blue site */
            r = (diag + 2) >> 2;
            g = (cross + 2) >> 2;
            b = c;
        }
    }

    const int o = 3 * (y * width + x);
    rgb[o] = (uchar)r;
    rgb[o + 1] = (uchar)g;
    rgb[o + 2] = (uchar)b;
}
