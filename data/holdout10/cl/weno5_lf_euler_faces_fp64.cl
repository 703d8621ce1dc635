#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Numerical flux of the 1-D Euler equations at the cell faces of many independent periodic lines (a dimensional
 * sweep of a finite-volume code), fifth-order WENO-JS reconstruction of the split fluxes, in fp64. One work-item
 * per face i+1/2 of a line: it loads the six cells i-2 .. i+3 (conserved rho, rho u, E as three planes), takes
 * velocity, pressure (floored at pmin) and sound speed, and splits the physical flux by local Lax-Friedrichs with
 * alpha = max |u| + c over the six cells. f+ is reconstructed from cells i-2 .. i+2, f- mirrored from i+3 .. i-1;
 * the face flux is their sum, one value per conserved variable. */
#define NV 3
#define WENO_EPS 1e-6

inline double weno5(double a, double b, double c, double d, double e)
{
    /* the three third-order candidates at the right face of cell c */
    const double q0 = (2.0 * a - 7.0 * b + 11.0 * c) / 6.0;
    const double q1 = (-b + 5.0 * c + 2.0 * d) / 6.0;
    const double q2 = (2.0 * c + 5.0 * d - e) / 6.0;

    /* Jiang-Shu smoothness indicators */
    const double t0 = a - 2.0 * b + c, s0 = a - 4.0 * b + 3.0 * c;
    const double t1 = b - 2.0 * c + d, s1 = b - d;
    const double t2 = c - 2.0 * d + e, s2 = 3.0 * c - 4.0 * d + e;
    const double b0 = 13.0 / 12.0 * t0 * t0 + 0.25 * s0 * s0;
    const double b1 = 13.0 / 12.0 * t1 * t1 + 0.25 * s1 * s1;
    const double b2 = 13.0 / 12.0 * t2 * t2 + 0.25 * s2 * s2;

    const double a0 = 0.1 / ((WENO_EPS + b0) * (WENO_EPS + b0));
    const double a1 = 0.6 / ((WENO_EPS + b1) * (WENO_EPS + b1));
    const double a2 = 0.3 / ((WENO_EPS + b2) * (WENO_EPS + b2));
    return (a0 * q0 + a1 * q1 + a2 * q2) / (a0 + a1 + a2);
}

__kernel void weno5_lf_euler_faces_fp64(const int nx, const int nline, const double gamma, const double pmin,
                                        __global const double *q,
                                        __global double *flux)
{
    const int gid = get_global_id(0);
    if (gid >= nx * nline)
        return;
    const int line = gid / nx;
    const int i = gid - line * nx;
    const size_t plane = (size_t)nx * nline;
    const size_t row = (size_t)line * nx;

    double qs[6][NV];
    double fs[6][NV];
    double alpha = 0.0;
    for (int s = 0; s < 6; s++) {
        int j = i + s - 2;
        if (j < 0)
            j += nx;
        else if (j >= nx)
            j -= nx;
        const double rho = q[row + j];
        const double mom = q[plane + row + j];
        const double ener = q[2 * plane + row + j];
        const double u = mom / rho;
        const double p = fmax((gamma - 1.0) * (ener - 0.5 * mom * u), pmin);
        const double c = sqrt(gamma * p / rho);
        alpha = fmax(alpha, fabs(u) + c);
        qs[s][0] = rho;
        qs[s][1] = mom;
        qs[s][2] = ener;
        fs[s][0] = mom;
        fs[s][1] = mom * u + p;
        fs[s][2] = u * (ener + p);
    }

    for (int v = 0; v < NV; v++) {
        double fp[5], fm[5];
        for (int s = 0; s < 5; s++) {
            fp[s] = 0.5 * (fs[s][v] + alpha * qs[s][v]);
            fm[s] = 0.5 * (fs[s + 1][v] - alpha * qs[s + 1][v]);
        }
        const double right_going = weno5(fp[0], fp[1], fp[2], fp[3], fp[4]);
        const double left_going = weno5(fm[4], fm[3], fm[2], fm[1], fm[0]);
        flux[v * plane + row + i] = right_going + left_going;
    }
}
