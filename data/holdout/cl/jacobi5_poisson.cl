/* One Jacobi sweep for the 2-D Poisson problem -lap(u) = f on an nx x ny grid with
 * spacing h: interior points take the average of their four neighbours plus
 * h^2 f / 4; boundary points keep their (Dirichlet) value. */
__kernel void jacobi5_poisson(const int nx, const int ny, const float h2,
                              __global const float *u,
                              __global const float *f,
                              __global float *unew)
{
    const int ix = get_global_id(0);
    const int iy = get_global_id(1);
    const int id = iy * nx + ix;
    if (ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1) {
        unew[id] = u[id];
        return;
    }
    const float nb = u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx];
    unew[id] = 0.25f * (nb + h2 * f[id]);
}
