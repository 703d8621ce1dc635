#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* p(x) = c[0] + c[1] x + ... + c[degree] x^degree for every x, by Horner's rule
 * in double precision; the coefficients sit in constant memory. */
__kernel void horner_fp64(const int n, const int degree,
                          __constant double *coef,
                          __global const double *x,
                          __global double *y)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    double xi = x[i];
    double acc = coef[degree];
    for (int d = degree - 1; d >= 0; --d)
        acc = fma(acc, xi, coef[d]);
    y[i] = acc;
}
