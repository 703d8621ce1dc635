#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Batched 4x4 symmetric (possibly indefinite) solves A x = b by LDL^T without pivoting,
 * one system per work-item, everything in private arrays.
 * A is packed lower by rows: a00 a10 a11 a20 a21 a22 a30 a31 a32 a33 (10 doubles a system).
 * Also writes D and the number of negative pivots (the inertia, by Sylvester's law). */
__kernel void ldlt4_solve_fp64(const int nsys, __global const double *ap, __global const double *b,
                               __global double *x, __global double *diag, __global int *nneg)
{
    int s = get_global_id(0);
    if (s >= nsys)
        return;

    __global const double *p = ap + 10 * s;
    double a[4][4];
    double l[4][4];
    double d[4];
    double y[4];
    int q = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c <= r; c++)
            a[r][c] = p[q++];

    int neg = 0;
    for (int j = 0; j < 4; j++) {
        double dj = a[j][j];
        for (int k = 0; k < j; k++)
            dj -= l[j][k] * l[j][k] * d[k];
        d[j] = dj;
        if (dj < 0.0)
            neg++;
        l[j][j] = 1.0;
        for (int r = j + 1; r < 4; r++) {
            double t = a[r][j];
            for (int k = 0; k < j; k++)
                t -= l[r][k] * l[j][k] * d[k];
            l[r][j] = t / dj;
        }
    }

    /* L y = b, then D z = y, then L^T x = z */
    for (int r = 0; r < 4; r++) {
        double t = b[4 * s + r];
        for (int k = 0; k < r; k++)
            t -= l[r][k] * y[k];
        y[r] = t;
    }
    for (int r = 0; r < 4; r++)
        y[r] = y[r] / d[r];
    for (int r = 3; r >= 0; r--) {
        double t = y[r];
        for (int k = r + 1; k < 4; k++)
            t -= l[k][r] * y[k];
        y[r] = t;
    }

    for (int r = 0; r < 4; r++) {
        x[4 * s + r] = y[r];
        diag[4 * s + r] = d[r];
    }
    nneg[s] = neg;
}
