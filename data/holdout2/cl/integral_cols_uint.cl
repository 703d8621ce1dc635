/* Column pass of a summed-area table: each work-item owns one column of 8-bit pixels and writes
 * the running (inclusive) sum down the rows. Neighbouring work-items walk neighbouring columns. */
__kernel void integral_cols_uint(const int width, const int height,
                                 __global const uchar *src,
                                 __global uint *sums)
{
    const int x = get_global_id(0);
    if (x >= width)
        return;

    uint acc = 0;
    for (int y = 0; y < height; ++y) {
        acc += src[y * width + x];
        sums[y * width + x] = acc;
    }
}
