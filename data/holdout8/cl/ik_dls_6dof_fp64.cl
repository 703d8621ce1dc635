#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Inverse kinematics of a 6-joint revolute arm by damped least squares, one target pose per work-item,
 * in double precision. The arm is given by standard Denavit-Hartenberg rows (a, alpha, d, theta offset).
 * Each iteration runs the forward kinematics (keeping every joint's axis and origin), forms the 6-vector
 * pose error (position error and half the sum of the cross products of the current and target rotation
 * columns), the geometric Jacobian, and the step dq = J^T (J J^T + lambda^2 I)^-1 e with a 6x6 Cholesky
 * solve. The step is scaled down to at most max_step radians on any joint, and the joints are clamped to
 * their limits. Iteration stops once the error norm is below tol or after max_iter steps.
 * Targets: 12 doubles each (position, then the rotation matrix by rows). */
#define NJ 6

void fk_frames(__constant const double *dh, const double *q, double *R, double *o, double z[NJ][3],
               double org[NJ][3])
{
    for (int k = 0; k < 9; k++)
        R[k] = (k % 4 == 0) ? 1.0 : 0.0;
    o[0] = o[1] = o[2] = 0.0;
    for (int j = 0; j < NJ; j++) {
        for (int k = 0; k < 3; k++) {
            z[j][k] = R[3 * k + 2];
            org[j][k] = o[k];
        }
        const double a = dh[4 * j], alpha = dh[4 * j + 1], d = dh[4 * j + 2];
        const double th = q[j] + dh[4 * j + 3];
        const double ct = cos(th), st = sin(th), ca = cos(alpha), sa = sin(alpha);
        /* rotation part of A_j by rows, and its translation */
        const double A[9] = {ct, -st * ca, st * sa,
                             st, ct * ca, -ct * sa,
                             0.0, sa, ca};
        const double t[3] = {a * ct, a * st, d};
        double Rn[9];
        for (int r = 0; r < 3; r++) {
            o[r] += R[3 * r] * t[0] + R[3 * r + 1] * t[1] + R[3 * r + 2] * t[2];
            for (int c = 0; c < 3; c++)
                Rn[3 * r + c] = R[3 * r] * A[c] + R[3 * r + 1] * A[3 + c] + R[3 * r + 2] * A[6 + c];
        }
        for (int k = 0; k < 9; k++)
            R[k] = Rn[k];
    }
}

__kernel void ik_dls_6dof_fp64(const int ntargets, const int max_iter, const double lambda, const double tol,
                               const double max_step,
                               __constant double *dh,
                               __constant double *q_lo,
                               __constant double *q_hi,
                               __global const double *target,
                               __global const double *q_init,
                               __global double *q_out,
                               __global double *err_out,
                               __global int *iters)
{
    const int n = get_global_id(0);
    if (n >= ntargets)
        return;

    __global const double *tg = target + 12 * n;
    double q[NJ];
    for (int j = 0; j < NJ; j++)
        q[j] = q_init[NJ * n + j];

    double R[9], o[3], z[NJ][3], org[NJ][3];
    double e[6], J[6][NJ];
    double err2;
    int it = 0;
    for (;;) {
        fk_frames(dh, q, R, o, z, org);
        e[0] = tg[0] - o[0];
        e[1] = tg[1] - o[1];
        e[2] = tg[2] - o[2];
        e[3] = e[4] = e[5] = 0.0;
        for (int c = 0; c < 3; c++) {
            /* column c of the current (R) and target (tg + 3) rotations */
            const double u0 = R[c], u1 = R[3 + c], u2 = R[6 + c];
            const double v0 = tg[3 + c], v1 = tg[6 + c], v2 = tg[9 + c];
            e[3] += 0.5 * (u1 * v2 - u2 * v1);
            e[4] += 0.5 * (u2 * v0 - u0 * v2);
            e[5] += 0.5 * (u0 * v1 - u1 * v0);
        }
        err2 = 0.0;
        for (int r = 0; r < 6; r++)
            err2 += e[r] * e[r];
        if (err2 < tol * tol || it >= max_iter)
            break;

        /* geometric Jacobian: linear part z x (p - origin), angular part z */
        for (int j = 0; j < NJ; j++) {
            const double dx = o[0] - org[j][0], dy = o[1] - org[j][1], dz = o[2] - org[j][2];
            J[0][j] = z[j][1] * dz - z[j][2] * dy;
            J[1][j] = z[j][2] * dx - z[j][0] * dz;
            J[2][j] = z[j][0] * dy - z[j][1] * dx;
            J[3][j] = z[j][0];
            J[4][j] = z[j][1];
            J[5][j] = z[j][2];
        }
        /* A = J J^T + lambda^2 I, lower triangle, then Cholesky in place */
        double A[6][6];
        for (int r = 0; r < 6; r++) {
            for (int c = 0; c <= r; c++) {
                double s = 0.0;
                for (int j = 0; j < NJ; j++)
                    s += J[r][j] * J[c][j];
                A[r][c] = s;
            }
            A[r][r] += lambda * lambda;
        }
        for (int c = 0; c < 6; c++) {
            double s = A[c][c];
            for (int k = 0; k < c; k++)
                s -= A[c][k] * A[c][k];
            const double l = sqrt(s);
            A[c][c] = l;
            for (int r = c + 1; r < 6; r++) {
                double t = A[r][c];
                for (int k = 0; k < c; k++)
                    t -= A[r][k] * A[c][k];
                A[r][c] = t / l;
            }
        }
        double y[6];
        for (int r = 0; r < 6; r++) {
            double s = e[r];
            for (int k = 0; k < r; k++)
                s -= A[r][k] * y[k];
            y[r] = s / A[r][r];
        }
        for (int r = 5; r >= 0; r--) {
            double s = y[r];
            for (int k = r + 1; k < 6; k++)
                s -= A[k][r] * y[k];
            y[r] = s / A[r][r];
        }

        double dq[NJ];
        double big = 0.0;
        for (int j = 0; j < NJ; j++) {
            double s = 0.0;
            for (int r = 0; r < 6; r++)
                s += J[r][j] * y[r];
            dq[j] = s;
            big = fmax(big, fabs(s));
        }
        const double scale = big > max_step ? max_step / big : 1.0;
        for (int j = 0; j < NJ; j++)
            q[j] = clamp(q[j] + scale * dq[j], q_lo[j], q_hi[j]);
        it++;
    }

    for (int j = 0; j < NJ; j++)
        q_out[NJ * n + j] = q[j];
    err_out[n] = sqrt(err2);
    iters[n] = it;
}
