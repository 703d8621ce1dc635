#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Evaluates many Chebyshev series at many points: y_s(x) = sum_k c_sk T_k(t), t = (2x - a - b) / (b - a)
 * maps [a, b] onto [-1, 1]. Work-item (i, s) takes point i and series s and runs the Clenshaw
 * recurrence backwards over the m coefficients of that series. Results are stored series-major. */
double clenshaw(__global const double *c, const int m, const double t)
{
    const double t2 = 2.0 * t;
    double b1 = 0.0, b2 = 0.0;
    for (int k = m - 1; k >= 1; k--) {
        const double b0 = c[k] + t2 * b1 - b2;
        b2 = b1;
        b1 = b0;
    }
    return c[0] + t * b1 - b2;
}

__kernel void clenshaw_cheb_fp64(const int npts, const int m, const double a, const double b,
                                 __global const double *x, __global const double *coef,
                                 __global double *y)
{
    const int i = get_global_id(0);
    const int s = get_global_id(1);
    if (i >= npts)
        return;

    const double t = (2.0 * x[i] - a - b) / (b - a);
    y[(size_t)s * npts + i] = clenshaw(coef + (size_t)s * m, m, t);
}
