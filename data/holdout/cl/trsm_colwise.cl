#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Solve L X = B in place (B := X) for a lower-triangular, non-unit L.
 * LAPACK layout: L is n x n column-major, B is n x nrhs column-major.
 * Column-oriented ("axpy") forward substitution: each work-item owns one
 * right-hand side and, after fixing x_k, eliminates it from the rows below. */
__kernel void trsm_colwise(const int n, const int nrhs,
                           __global const double *L, __global double *B)
{
    const int r = get_global_id(0);
    if (r >= nrhs)
        return;
    __global double *b = B + (size_t)r * n;
    for (int k = 0; k < n; ++k) {
        const double xk = b[k] / L[(size_t)k * n + k];
        b[k] = xk;
        __global const double *lcol = L + (size_t)k * n;
        for (int i = k + 1; i < n; ++i)
            b[i] -= lcol[i] * xk;
    }
}
