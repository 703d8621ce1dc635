#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Time-domain backprojection for stripmap/spotlight SAR in double precision. The image is a ground-plane grid of
 * nx by ny pixels (spacing dx, first pixel at (x0, y0), height 0); every pulse p has its antenna phase centre at
 * ant[3p .. 3p + 2] and a range-compressed profile of nbin complex samples, bin b at slant range r0 + b * dr.
 * Per pixel and pulse: the slant range R to the antenna, its fractional bin, linear interpolation between the
 * two neighbouring samples, and the phase correction exp(+j 4 pi R / lambda) (kr = 4 pi / lambda) undoing the
 * two-way carrier phase, summed over the pulses. Pulses whose swath does not reach the pixel are skipped. An
 * item per pixel (1-D NDRange, row-major pixels). */
__kernel void sar_backproject_lerp_fp64(const int nx, const int ny, const int npulse, const int nbin,
                                        const double x0, const double y0, const double dx,
                                        const double r0, const double dr, const double kr,
                                        __global const double *ant,
                                        __global const double2 *rc,
                                        __global double2 *img)
{
    const int i = get_global_id(0);
    if (i >= nx * ny)
        return;

    const double px = x0 + (i % nx) * dx;
    const double py = y0 + (i / nx) * dx;
    const double inv_dr = 1.0 / dr;

    double acc_re = 0.0;
    double acc_im = 0.0;
    for (int p = 0; p < npulse; p++) {
        const double ax = px - ant[3 * p];
        const double ay = py - ant[3 * p + 1];
        const double az = ant[3 * p + 2];
        const double R = sqrt(ax * ax + ay * ay + az * az);
        const double fb = (R - r0) * inv_dr;
        const int b = (int)floor(fb);
        if (b < 0 || b >= nbin - 1)
            continue;
        const double w = fb - b;
        __global const double2 *prof = rc + (size_t)p * nbin;
        const double2 s0 = prof[b];
        const double2 s1 = prof[b + 1];
        const double sre = s0.x + w * (s1.x - s0.x);
        const double sim = s0.y + w * (s1.y - s0.y);
        double c;
        const double s = sincos(kr * R, &c);
        acc_re += sre * c - sim * s;
        acc_im += sre * s + sim * c;
    }
    img[i] = (double2)(acc_re, acc_im);
}
