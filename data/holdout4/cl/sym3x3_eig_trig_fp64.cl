#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Eigenvalues of many real symmetric 3x3 matrices by the closed-form trigonometric method
 * (Smith 1961): shift by the mean eigenvalue q, scale by p, and the eigenvalues of B = (A - qI)/p
 * are 2 cos(phi + 2 pi k / 3) with cos(3 phi) = det(B) / 2.
 * Input: 6 doubles per matrix, a00 a01 a02 a11 a12 a22. Output: 3 eigenvalues, ascending. */
__kernel void sym3x3_eig_trig_fp64(const int nmat, __global const double *a, __global double *eig)
{
    const int g = get_global_id(0);
    if (g >= nmat)
        return;

    __global const double *m = a + 6 * g;
    const double a00 = m[0], a01 = m[1], a02 = m[2];
    const double a11 = m[3], a12 = m[4], a22 = m[5];

    double lo, mid, hi;
    const double off = a01 * a01 + a02 * a02 + a12 * a12;
    if (off == 0.0) {
        /* already diagonal: sort the three entries */
        lo = fmin(a00, fmin(a11, a22));
        hi = fmax(a00, fmax(a11, a22));
        mid = a00 + a11 + a22 - lo - hi;
    } else {
        const double q = (a00 + a11 + a22) / 3.0;
        const double d0 = a00 - q, d1 = a11 - q, d2 = a22 - q;
        const double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * off) / 6.0);
        const double b00 = d0 / p, b11 = d1 / p, b22 = d2 / p;
        const double b01 = a01 / p, b02 = a02 / p, b12 = a12 / p;
        double r = 0.5 * (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02)
                          + b02 * (b01 * b12 - b11 * b02));
        double phi;
        if (r <= -1.0)
            phi = M_PI / 3.0;
        else if (r >= 1.0)
            phi = 0.0;
        else
            phi = acos(r) / 3.0;
        hi = q + 2.0 * p * cos(phi);
        lo = q + 2.0 * p * cos(phi + 2.0 * M_PI / 3.0);
        mid = 3.0 * q - hi - lo;
    }
    eig[3 * g + 0] = lo;
    eig[3 * g + 1] = mid;
    eig[3 * g + 2] = hi;
}
