#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Classic fourth-order Runge-Kutta for the Lorenz system, one trajectory per work-item.
 * state holds x, y, z of each trajectory (interleaved); every work-item takes `steps`
 * steps of size dt and writes its final point back in place. */
void lorenz_rhs(double x, double y, double z, double sigma, double rho, double beta,
                double *dx, double *dy, double *dz)
{
    *dx = sigma * (y - x);
    *dy = x * (rho - z) - y;
    *dz = x * y - beta * z;
}

__kernel void lorenz_rk4_fp64(const int n, const int steps, const double dt,
                              const double sigma, const double rho, const double beta,
                              __global double *state)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    double x = state[3 * i];
    double y = state[3 * i + 1];
    double z = state[3 * i + 2];
    const double hdt = 0.5 * dt;

    for (int s = 0; s < steps; s++) {
        double k1x, k1y, k1z, k2x, k2y, k2z, k3x, k3y, k3z, k4x, k4y, k4z;
        lorenz_rhs(x, y, z, sigma, rho, beta, &k1x, &k1y, &k1z);
        lorenz_rhs(x + hdt * k1x, y + hdt * k1y, z + hdt * k1z, sigma, rho, beta, &k2x, &k2y, &k2z);
        lorenz_rhs(x + hdt * k2x, y + hdt * k2y, z + hdt * k2z, sigma, rho, beta, &k3x, &k3y, &k3z);
        lorenz_rhs(x + dt * k3x, y + dt * k3y, z + dt * k3z, sigma, rho, beta, &k4x, &k4y, &k4z);
        x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        y += dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
        z += dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z);
    }

    state[3 * i] = x;
    state[3 * i + 1] = y;
    state[3 * i + 2] = z;
}
