#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One level of the orthonormal 2-D Haar wavelet transform of a double-precision image.
 * Each work-item takes one 2x2 block of the input and writes its four coefficients into the
 * four quadrants of the output: approximation (LL) top-left, horizontal detail top-right,
 * vertical detail bottom-left, diagonal detail bottom-right. */
__kernel void haar2d_level_fp64(const int width, const int height,
                                __global const double *src,
                                __global double *dst)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    const int hw = width / 2;
    const int hh = height / 2;
    if (i >= hw || j >= hh)
        return;

    const int top = (2 * j) * width + 2 * i;
    const double a = src[top];
    const double b = src[top + 1];
    const double c = src[top + width];
    const double d = src[top + width + 1];

    dst[j * width + i] = 0.5 * (a + b + c + d);
    dst[j * width + hw + i] = 0.5 * (a - b + c - d);
    dst[(hh + j) * width + i] = 0.5 * (a + b - c - d);
    dst[(hh + j) * width + hw + i] = 0.5 * (a - b - c + d);
}
