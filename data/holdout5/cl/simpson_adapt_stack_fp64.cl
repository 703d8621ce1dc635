#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Damped oscillation integrals I = int_0^upper exp(-alpha x) sin(omega x) dx, one per work-item, by
 * adaptive Simpson quadrature. Recursion is not allowed in OpenCL C, so the subintervals still to do
 * sit on a private stack. [0, upper] is first cut into one panel per half period of the sine (at least
 * one); a panel's share of the tolerance halves with every bisection, and an interval is accepted, with
 * Richardson's correction, once the two halves agree with the whole or max_depth is reached. */
#define STACK_SIZE 40

typedef struct {
    double lo, hi;
    double flo, fmid, fhi;
    double whole;
    int depth;
} interval_t;

static double integrand(double x, double alpha, double omega)
{
    return exp(-alpha * x) * sin(omega * x);
}

__kernel void simpson_adapt_stack_fp64(const int n, const double tol, const int max_depth,
                                       __global const double *alpha, __global const double *omega,
                                       __global const double *upper, __global double *result)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const double al = alpha[i];
    const double om = omega[i];
    const double b = upper[i];
    const int depth_limit = min(max_depth, STACK_SIZE - 2);

    int npanel = (int)(om * b / M_PI);
    if (npanel < 1)
        npanel = 1;
    const double h = b / npanel;
    const double panel_tol = tol / npanel;

    interval_t stack[STACK_SIZE];
    double total = 0.0;
    for (int p = 0; p < npanel; p++) {
        const double lo = p * h;
        const double hi = (p == npanel - 1) ? b : lo + h;
        int top = 0;
        stack[0].lo = lo;
        stack[0].hi = hi;
        stack[0].flo = integrand(lo, al, om);
        stack[0].fmid = integrand(0.5 * (lo + hi), al, om);
        stack[0].fhi = integrand(hi, al, om);
        stack[0].whole = (hi - lo) / 6.0 * (stack[0].flo + 4.0 * stack[0].fmid + stack[0].fhi);
        stack[0].depth = 0;
        top = 1;

        while (top > 0) {
            const interval_t cur = stack[--top];
            const double mid = 0.5 * (cur.lo + cur.hi);
            const double fl = integrand(0.5 * (cur.lo + mid), al, om);
            const double fr = integrand(0.5 * (mid + cur.hi), al, om);
            const double left = (mid - cur.lo) / 6.0 * (cur.flo + 4.0 * fl + cur.fmid);
            const double right = (cur.hi - mid) / 6.0 * (cur.fmid + 4.0 * fr + cur.fhi);
            const double delta = left + right - cur.whole;
            const double eps = ldexp(panel_tol, -cur.depth);

            if (cur.depth >= depth_limit || fabs(delta) <= 15.0 * eps) {
                total += left + right + delta / 15.0;
            } else {
                /* right half below the left one: the left half is done first */
                stack[top].lo = mid;
                stack[top].hi = cur.hi;
                stack[top].flo = cur.fmid;
                stack[top].fmid = fr;
                stack[top].fhi = cur.fhi;
                stack[top].whole = right;
                stack[top].depth = cur.depth + 1;
                top++;
                stack[top].lo = cur.lo;
                stack[top].hi = mid;
                stack[top].flo = cur.flo;
                stack[top].fmid = fl;
                stack[top].fhi = cur.fmid;
                stack[top].whole = left;
                stack[top].depth = cur.depth + 1;
                top++;
            }
        }
    }
    result[i] = total;
}
