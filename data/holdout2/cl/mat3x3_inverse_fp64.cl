#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Inverse of a batch of 3x3 double matrices (row-major, nine doubles each) by the adjugate over
 * the determinant. A matrix whose |det| is below eps is flagged and its inverse left at zero. */
__kernel void mat3x3_inverse_fp64(const int nmat, const double eps,
                                  __global const double *a,
                                  __global double *inv,
                                  __global int *singular)
{
    const int m = get_global_id(0);
    if (m >= nmat)
        return;

    __global const double *s = a + 9 * m;
    __global double *o = inv + 9 * m;
    const double c00 = s[4] * s[8] - s[5] * s[7];
    const double c01 = s[5] * s[6] - s[3] * s[8];
    const double c02 = s[3] * s[7] - s[4] * s[6];
    const double det = s[0] * c00 + s[1] * c01 + s[2] * c02;
    if (fabs(det) < eps) {
        singular[m] = 1;
        for (int e = 0; e < 9; e++)
            o[e] = 0.0;
        return;
    }
    singular[m] = 0;
    const double r = 1.0 / det;
    o[0] = c00 * r;
    o[1] = (s[2] * s[7] - s[1] * s[8]) * r;
    o[2] = (s[1] * s[5] - s[2] * s[4]) * r;
    o[3] = c01 * r;
    o[4] = (s[0] * s[8] - s[2] * s[6]) * r;
    o[5] = (s[2] * s[3] - s[0] * s[5]) * r;
    o[6] = c02 * r;
    o[7] = (s[1] * s[6] - s[0] * s[7]) * r;
    o[8] = (s[0] * s[4] - s[1] * s[3]) * r;
}
