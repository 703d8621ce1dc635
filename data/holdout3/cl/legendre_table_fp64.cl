#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Legendre polynomials P_0 .. P_kmax at n points by Bonnet's three-term recurrence
 *   (k + 1) P_{k+1}(x) = (2k + 1) x P_k(x) - k P_{k-1}(x),
 * written as a table of planes (P_k of every point, then P_{k+1}), plus the series
 * sum_k coef[k] P_k(x) of each point. */
__kernel void legendre_table_fp64(const int n, const int kmax, __global const double *xs,
                                  __global const double *coef, __global double *table, __global double *series)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    double x = xs[i];
    double pm1 = 1.0;
    double p = x;
    table[i] = pm1;
    table[n + i] = p;
    double sum = coef[0] * pm1 + coef[1] * p;
    for (int k = 1; k < kmax; k++) {
        double pn = ((2 * k + 1) * x * p - k * pm1) / (k + 1);
        pm1 = p;
        p = pn;
        table[(k + 1) * n + i] = p;
        sum += coef[k + 1] * p;
    }
    series[i] = sum;
}
