/* 3x3 median filter on 8-bit pixels with replicated edges. No full sort: each row of the window is
 * sorted with min/max, then the median is the median of (largest row minimum, median of the row
 * medians, smallest row maximum). */
uchar med3(uchar a, uchar b, uchar c)
{
    return max(min(a, b), min(max(a, b), c));
}

__kernel void median3x3_rowsort(const int width, const int height,
                                __global const uchar *src,
                                __global uchar *dst)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int xl = max(x - 1, 0);
    const int xr = min(x + 1, width - 1);
    uchar lo[3], mid[3], hi[3];
    for (int r = 0; r < 3; r++) {
        const int row = clamp(y - 1 + r, 0, height - 1) * width;
        const uchar a = src[row + xl];
        const uchar b = src[row + x];
        const uchar c = src[row + xr];
        lo[r] = min(min(a, b), c);
        hi[r] = max(max(a, b), c);
        mid[r] = med3(a, b, c);
    }
    const uchar max_lo = max(max(lo[0], lo[1]), lo[2]);
    const uchar min_hi = min(min(hi[0], hi[1]), hi[2]);
    dst[y * width + x] = med3(max_lo, med3(mid[0], mid[1], mid[2]), min_hi);
}
