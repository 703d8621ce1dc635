/* Gyro-average of the electrostatic potential on a periodic nx x ny grid, as a gyrokinetic code forms
 * <phi>(R) for its guiding centres: for each of nrho gyroradii rho[k] (in grid cells) phi is averaged over a ring
 * of n_k = 4 max(1, ceil(rho[k])) equally spaced points around the node (more points on larger rings, the ring
 * walked by rotating the offset with one sincos per radius), each point bilinearly interpolated from its four surrounding nodes with periodic wrap, and the ring averages are summed
 * with the quadrature weights w[k] of the magnetic-moment (Maxwellian) integral. 2-D NDRange, one node per
 * work-item; rho[k] < nx - 1 and < ny - 1. */

__kernel void gyroavg_ring_bilerp_2d(const int nx, const int ny, const int nrho,
                                     __global const float *phi,
                                     __global const float *rho,
                                     __global const float *w,
                                     __global float *phibar)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;

    float acc = 0.0f;
    for (int k = 0; k < nrho; k++) {
        const float r = rho[k];
        const int n = 4 * max(1, (int)ceil(r));
        float cd;
        const float sd = sincos(6.2831853f / n, &cd);
        float ox = r, oy = 0.0f; /* offset of ring point p */
        float ring = 0.0f;
        for (int p = 0; p < n; p++) {
            const float px = x + ox, py = y + oy;
            const float fx = floor(px), fy = floor(py);
            const float ax = px - fx, ay = py - fy;
            int i0 = (int)fx, j0 = (int)fy;
            if (i0 < 0) i0 += nx;
            else if (i0 >= nx) i0 -= nx;
            if (j0 < 0) j0 += ny;
            else if (j0 >= ny) j0 -= ny;
            const int i1 = (i0 + 1 == nx) ? 0 : i0 + 1;
            const int j1 = (j0 + 1 == ny) ? 0 : j0 + 1;
            const float lo = phi[j0 * nx + i0] + ax * (phi[j0 * nx + i1] - phi[j0 * nx + i0]);
            const float hi = phi[j1 * nx + i0] + ax * (phi[j1 * nx + i1] - phi[j1 * nx + i0]);
            ring += lo + ay * (hi - lo);
            const float t = ox * cd - oy * sd;
            oy = ox * sd + oy * cd;
            ox = t;
        }
        acc += w[k] * ring / n;
    }
    phibar[y * nx + x] = acc;
}
