/* RGBA (uchar4 per pixel) to 8-bit luma with the fixed-point BT.601 weights
 * (77 R + 150 G + 29 B + 128) >> 8; alpha is ignored. */
__kernel void rgba_to_gray_uchar4(const int width, const int height,
                                  __global const uchar4 *rgba,
                                  __global uchar *gray)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x < width && y < height) {
        const uchar4 p = rgba[y * width + x];
        const uint luma = 77u * p.x + 150u * p.y + 29u * p.z + 128u;
        gray[y * width + x] = (uchar)(luma >> 8);
    }
}
