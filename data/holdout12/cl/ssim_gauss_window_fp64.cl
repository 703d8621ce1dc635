#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* SSIM map of a decoded 8-bit luma plane against its source, in fp64, as an encoder's quality pass computes it
 * (Wang et al.: Gaussian-weighted local means, variances and covariance, constants c1 = (0.01 L)^2 and
 * c2 = (0.03 L)^2). One output per window position, windows win x win placed every `step` samples: 2-D NDRange
 * (output column, output row). The separable window's 1-D taps (summing to 1) are an argument; the 2-D weight
 * is their product. Every window lies inside the picture (out_w = (width - win) / step + 1, same for rows). */
__kernel void ssim_gauss_window_fp64(const int width, const int win, const int step,
                                     const int out_w, const int out_h,
                                     const double c1, const double c2,
                                     __global const double *taps,
                                     __global const uchar *src,
                                     __global const uchar *rec,
                                     __global double *ssim_map)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    if (ox >= out_w || oy >= out_h)
        return;

    const size_t origin = (size_t)(oy * step) * width + ox * step;
    double mx = 0.0, my = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (int j = 0; j < win; j++) {
        const double wy = taps[j];
        __global const uchar *a = src + origin + (size_t)j * width;
        __global const uchar *b = rec + origin + (size_t)j * width;
        double rx = 0.0, ry = 0.0, rxx = 0.0, ryy = 0.0, rxy = 0.0;
        for (int i = 0; i < win; i++) {
            const double w = taps[i];
            const double x = (double)a[i], y = (double)b[i];
            const double wx = w * x, wyv = w * y;
            rx += wx;
            ry += wyv;
            rxx += wx * x;
            ryy += wyv * y;
            rxy += wx * y;
        }
        mx += wy * rx;
        my += wy * ry;
        sxx += wy * rxx;
        syy += wy * ryy;
        sxy += wy * rxy;
    }

    const double vx = sxx - mx * mx;
    const double vy = syy - my * my;
    const double cov = sxy - mx * my;
    ssim_map[(size_t)oy * out_w + ox] = ((2.0 * mx * my + c1) * (2.0 * cov + c2))
                                        / ((mx * mx + my * my + c1) * (vx + vy + c2));
}
