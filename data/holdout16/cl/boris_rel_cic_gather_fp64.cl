#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Test-particle tracing in a 2D3V electrostatic/electromagnetic PIC snapshot, in double precision: a relativistic
 * Boris push (Vay-free, the standard leapfrog form) of each particle through nstep steps of the frozen fields of a
 * periodic nx x ny grid. Every step gathers Ex, Ey and Bz at the particle by cloud-in-cell (bilinear) weights from
 * the four surrounding nodes (periodic wrap), adds the uniform guide field (bx0, by0, bz0), then does half an
 * electric kick, the magnetic rotation with t = qm dt B / (2 gamma), the second half kick, and moves the particle
 * with v = u / gamma, wrapping it back into the box. Units: c = 1, grid spacing 1, u = gamma v, qm = q / m.
 * state[6 i ..] = (x, y, ux, uy, uz, unused) is updated in place. */

__kernel void boris_rel_cic_gather_fp64(const int np, const int nx, const int ny, const int nstep,
                                        const double qm, const double dt,
                                        const double bx0, const double by0, const double bz0,
                                        __global const double *ex,
                                        __global const double *ey,
                                        __global const double *bz,
                                        __global double *state)
{
    const int i = get_global_id(0);
    if (i >= np)
        return;

    double x = state[6 * i], y = state[6 * i + 1];
    double ux = state[6 * i + 2], uy = state[6 * i + 3], uz = state[6 * i + 4];
    const double lx = (double)nx, ly = (double)ny;
    const double h = 0.5 * qm * dt;

    for (int s = 0; s < nstep; s++) {
        /* cloud-in-cell weights, nodes at integer positions */
        const double fx = floor(x), fy = floor(y);
        const double ax = x - fx, ay = y - fy;
        int i0 = (int)fx, j0 = (int)fy;
        if (i0 >= nx) i0 -= nx;
        if (j0 >= ny) j0 -= ny;
        const int i1 = (i0 + 1 == nx) ? 0 : i0 + 1;
        const int j1 = (j0 + 1 == ny) ? 0 : j0 + 1;
        const double w00 = (1.0 - ax) * (1.0 - ay), w10 = ax * (1.0 - ay);
        const double w01 = (1.0 - ax) * ay, w11 = ax * ay;
        const int n00 = j0 * nx + i0, n10 = j0 * nx + i1, n01 = j1 * nx + i0, n11 = j1 * nx + i1;

        const double Ex = w00 * ex[n00] + w10 * ex[n10] + w01 * ex[n01] + w11 * ex[n11];
        const double Ey = w00 * ey[n00] + w10 * ey[n10] + w01 * ey[n01] + w11 * ey[n11];
        const double Bz = bz0 + w00 * bz[n00] + w10 * bz[n10] + w01 * bz[n01] + w11 * bz[n11];

        /* half electric kick */
        ux += h * Ex;
        uy += h * Ey;

        /* magnetic rotation */
        const double ginv = 1.0 / sqrt(1.0 + ux * ux + uy * uy + uz * uz);
        const double tx = h * bx0 * ginv, ty = h * by0 * ginv, tz = h * Bz * ginv;
        const double f = 2.0 / (1.0 + tx * tx + ty * ty + tz * tz);
        const double px = ux + (uy * tz - uz * ty);
        const double py = uy + (uz * tx - ux * tz);
        const double pz = uz + (ux * ty - uy * tx);
        ux += f * (py * tz - pz * ty);
        uy += f * (pz * tx - px * tz);
        uz += f * (px * ty - py * tx);

        /* second half kick and move */
        ux += h * Ex;
        uy += h * Ey;
        const double g2 = 1.0 / sqrt(1.0 + ux * ux + uy * uy + uz * uz);
        x += dt * ux * g2;
        y += dt * uy * g2;
        x -= lx * floor(x / lx);
        y -= ly * floor(y / ly);
    }

    state[6 * i] = x;
    state[6 * i + 1] = y;
    state[6 * i + 2] = ux;
    state[6 * i + 3] = uy;
    state[6 * i + 4] = uz;
}
