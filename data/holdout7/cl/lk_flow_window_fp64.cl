#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Lucas-Kanade optical flow, one pixel per work-item, in double precision. Over a
 * (2 * radius + 1)^2 window the kernel accumulates the normal equations of the brightness
 * constancy constraint Ix u + Iy v + It = 0 (Ix, Iy: central differences of the first frame,
 * It: second frame minus first), then solves the 2x2 system by Cramer's rule. Where the smaller
 * eigenvalue of the structure tensor is below min_eig the window is untextured (the aperture
 * problem) and the flow is set to zero; border pixels without a full window are zero too. */
__kernel void lk_flow_window_fp64(const int width, const int height, const int radius, const double min_eig,
                                  __global const double *frame0,
                                  __global const double *frame1,
                                  __global double *u,
                                  __global double *v)
{
    const int gid = get_global_id(0);
    if (gid >= width * height)
        return;
    const int x = gid % width;
    const int y = gid / width;
    const int b = radius + 1;
    if (x < b || y < b || x >= width - b || y >= height - b) {
        u[gid] = 0.0;
        v[gid] = 0.0;
        return;
    }

    double a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0;
    for (int dy = -radius; dy <= radius; dy++) {
        for (int dx = -radius; dx <= radius; dx++) {
            const int p = (y + dy) * width + (x + dx);
            const double ix = 0.5 * (frame0[p + 1] - frame0[p - 1]);
            const double iy = 0.5 * (frame0[p + width] - frame0[p - width]);
            const double it = frame1[p] - frame0[p];
            a11 += ix * ix;
            a12 += ix * iy;
            a22 += iy * iy;
            b1 -= ix * it;
            b2 -= iy * it;
        }
    }
    const double half_tr = 0.5 * (a11 + a22);
    const double hd = 0.5 * (a11 - a22);
    const double lmin = half_tr - sqrt(hd * hd + a12 * a12);
    if (lmin < min_eig) {
        u[gid] = 0.0;
        v[gid] = 0.0;
        return;
    }
    const double det = a11 * a22 - a12 * a12;
    u[gid] = (a22 * b1 - a12 * b2) / det;
    v[gid] = (a11 * b2 - a12 * b1) / det;
}
