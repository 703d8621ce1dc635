#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* The real root of x^3 + p x + q = 0 (p > 0, so exactly one) by Newton's method from x = 0, one
 * cubic per work-item. A work-item iterates (do-while) until its step is below tol (relative) or
 * max_iter steps are done, so the trip count depends on the coefficients. */
__kernel void newton_cubic_fp64(const int n, const int max_iter, const double tol,
                                __global const double *p,
                                __global const double *q,
                                __global double *root,
                                __global int *iters)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const double pi = p[i];
    const double qi = q[i];
    double x = 0.0;
    double step;
    int it = 0;
    do {
        const double f = (x * x + pi) * x + qi;
        const double df = 3.0 * x * x + pi;
        step = f / df;
        x -= step;
        it++;
    } while (fabs(step) > tol * (1.0 + fabs(x)) && it < max_iter);
    root[i] = x;
    iters[i] = it;
}
