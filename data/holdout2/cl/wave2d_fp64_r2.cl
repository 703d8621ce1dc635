#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One leapfrog time step of the 2-D wave equation with a fourth-order (radius-2 cross) Laplacian,
 * in double precision. The two outermost rings of cells are held at zero (fixed boundary). */
__kernel void wave2d_fp64_r2(const int nx, const int ny, const double c2,
                             __global const double *u_prev,
                             __global const double *u,
                             __global double *u_next)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= nx || j >= ny)
        return;

    const int p = j * nx + i;
    if (i < 2 || j < 2 || i >= nx - 2 || j >= ny - 2) {
        u_next[p] = 0.0;
        return;
    }
    const double centre = u[p];
    const double lap_x = -u[p - 2] + 16.0 * u[p - 1] - 30.0 * centre + 16.0 * u[p + 1] - u[p + 2];
    const double lap_y = -u[p - 2 * nx] + 16.0 * u[p - nx] - 30.0 * centre + 16.0 * u[p + nx] - u[p + 2 * nx];
    u_next[p] = 2.0 * centre - u_prev[p] + c2 * (lap_x + lap_y) / 12.0;
}
