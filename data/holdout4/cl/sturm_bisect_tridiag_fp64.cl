#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Eigenvalues of a batch of symmetric tridiagonal matrices by bisection on Sturm counts.
 * Matrix b has diagonal d[b*n .. b*n+n-1] and sub-diagonal e[b*n + 1 ..] (e[b*n] is not used).
 * Work-item g finds eigenvalue k = g % n (ascending) of matrix b = g / n: it starts from the
 * Gershgorin interval and halves it `iters` times, keeping the half where the number of
 * eigenvalues below the midpoint crosses k. */
#define PIVMIN 1e-280

int count_below(__global const double *d, __global const double *e, const int n, const double x)
{
    double q = d[0] - x;
    if (fabs(q) < PIVMIN)
        q = -PIVMIN;
    int cnt = (q < 0.0) ? 1 : 0;
    for (int i = 1; i < n; i++) {
        q = d[i] - x - e[i] * e[i] / q;
        if (fabs(q) < PIVMIN)
            q = -PIVMIN;
        if (q < 0.0)
            cnt++;
    }
    return cnt;
}

__kernel void sturm_bisect_tridiag_fp64(const int nmat, const int n, const int iters,
                                        __global const double *d, __global const double *e,
                                        __global double *evals)
{
    const int g = get_global_id(0);
    if (g >= nmat * n)
        return;
    const int k = g % n;
    __global const double *db = d + (size_t)(g / n) * n;
    __global const double *eb = e + (size_t)(g / n) * n;

    double lo = db[0], hi = db[0];
    for (int i = 0; i < n; i++) {
        double rad = 0.0;
        if (i > 0)
            rad += fabs(eb[i]);
        if (i < n - 1)
            rad += fabs(eb[i + 1]);
        lo = fmin(lo, db[i] - rad);
        hi = fmax(hi, db[i] + rad);
    }

    for (int it = 0; it < iters; it++) {
        const double mid = 0.5 * (lo + hi);
        if (count_below(db, eb, n, mid) > k)
            hi = mid;
        else
            lo = mid;
    }
    evals[g] = 0.5 * (lo + hi);
}
