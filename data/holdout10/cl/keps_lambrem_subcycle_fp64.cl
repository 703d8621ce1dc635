#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Source-term stage of a low-Reynolds k-epsilon model (Lam-Bremhorst damping) on an nx x ny cell grid, in fp64,
 * one work-item per cell (rows y, cells x along the row). The mean strain S^2 = 2 (ux^2 + vy^2) + (uy + vx)^2
 * comes from central differences of the cell velocities (one-sided at the domain edge). The local ODEs
 *   dk/dt = P - eps,   deps/dt = C1 f1 P eps / k - C2 f2 eps^2 / k,   P = min(nu_t S^2, 10 eps)
 * are integrated over dt by semi-implicit (Patankar) sub-steps, as many as the cell's stiffness dt eps / k asks
 * for, at most max_sub. The damping functions (Rt = k^2 / (nu eps), Ry = sqrt(k) y / nu)
 *   f_mu = (1 - exp(-0.0165 Ry))^2 (1 + 20.5 / Rt),   f1 = 1 + (0.05 / f_mu)^3,   f2 = 1 - exp(-Rt^2)
 * are taken afresh every sub-step, f_mu clipped to [0.0025, 1]. Wall cells (wall distance < 0) get the floor
 * values, zero eddy viscosity and zero sub-steps. Outputs: k, eps, nu_t = C_mu f_mu k^2 / eps and the sub-steps. */
#define C_MU 0.09
#define C_1 1.44
#define C_2 1.92
#define K_MIN 1e-10
#define EPS_MIN 1e-12

inline double damping_fmu(double k, double e, double y, double nu)
{
    const double rt = k * k / (nu * e);
    const double ry = sqrt(k) * y / nu;
    const double g = 1.0 - exp(-0.0165 * ry);
    const double fmu = g * g * (1.0 + 20.5 / rt);
    return fmin(fmax(fmu, 0.0025), 1.0);
}

__kernel void keps_lambrem_subcycle_fp64(const int nx, const int ny, const int max_sub,
                                         const double dt, const double inv_dx, const double inv_dy,
                                         const double nu,
                                         __global const double *u,
                                         __global const double *v,
                                         __global const double *k_in,
                                         __global const double *eps_in,
                                         __global const double *wall_dist,
                                         __global double *k_out,
                                         __global double *eps_out,
                                         __global double *nut_out,
                                         __global int *nsub_out)
{
    const int c = get_global_id(0);
    if (c >= nx * ny)
        return;
    const double y = wall_dist[c];
    if (y < 0.0) {
        k_out[c] = K_MIN;
        eps_out[c] = EPS_MIN;
        nut_out[c] = 0.0;
        nsub_out[c] = 0;
        return;
    }
    const int j = c / nx;
    const int i = c - j * nx;
    const int il = max(i - 1, 0), ir = min(i + 1, nx - 1);
    const int jd = max(j - 1, 0), ju = min(j + 1, ny - 1);
    const double sx = inv_dx / (double)(ir - il);
    const double sy = inv_dy / (double)(ju - jd);
    const double ux = (u[j * nx + ir] - u[j * nx + il]) * sx;
    const double vx = (v[j * nx + ir] - v[j * nx + il]) * sx;
    const double uy = (u[ju * nx + i] - u[jd * nx + i]) * sy;
    const double vy = (v[ju * nx + i] - v[jd * nx + i]) * sy;
    const double s2 = 2.0 * (ux * ux + vy * vy) + (uy + vx) * (uy + vx);

    double k = k_in[c];
    double e = eps_in[c];
    const double stiff = dt * e / k * 2.0;
    const int ns = (stiff < (double)(max_sub - 1)) ? 1 + (int)stiff : max_sub;
    const double hs = dt / (double)ns;

    for (int s = 0; s < ns; s++) {
        const double fmu = damping_fmu(k, e, y, nu);
        const double rt = k * k / (nu * e);
        const double q = 0.05 / fmu;
        const double f1 = 1.0 + q * q * q;
        const double f2 = 1.0 - exp(-rt * rt);
        const double nut = C_MU * fmu * k * k / e;
        const double prod = fmin(nut * s2, 10.0 * e);
        const double tinv = e / k;
        const double kn = (k + hs * prod) / (1.0 + hs * tinv);
        const double en = (e + hs * C_1 * f1 * prod * tinv) / (1.0 + hs * C_2 * f2 * tinv);
        k = fmax(kn, K_MIN);
        e = fmax(en, EPS_MIN);
    }

    k_out[c] = k;
    eps_out[c] = e;
    nut_out[c] = C_MU * damping_fmu(k, e, y, nu) * k * k / e;
    nsub_out[c] = ns;
}
