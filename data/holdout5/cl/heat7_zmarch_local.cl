/* One explicit step of the 3-D heat equation, u_new = u + r * (6-neighbour Laplacian), on an
 * nx * ny * nz grid stored x fastest. The NDRange covers one xy plane; every work-item marches up its z
 * column (2.5-D blocking): the current plane of the group's tile plus a one-cell halo is staged in
 * __local memory, the planes below and above stay in registers. The outer faces keep their values
 * (Dirichlet). Items past the grid edge (padded NDRange) still take part in the barriers. */
__kernel void heat7_zmarch_local(const int nx, const int ny, const int nz, const float r,
                                 __global const float *u, __global float *u_new,
                                 __local float *tile)
{
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);
    const int lx = get_local_id(0) + 1;
    const int ly = get_local_id(1) + 1;
    const int bw = get_local_size(0);
    const int bh = get_local_size(1);
    const int tw = bw + 2;
    const bool inside = gx < nx && gy < ny;
    const bool face = gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1;
    const size_t plane = (size_t)nx * ny;
    const size_t col = (size_t)gy * nx + gx;

    float below = 0.0f, cur = 0.0f, above = 0.0f;
    if (inside) {
        below = u[col];
        cur = u[plane + col];
        u_new[col] = below;
        u_new[(nz - 1) * plane + col] = u[(nz - 1) * plane + col];
    }

    for (int z = 1; z < nz - 1; z++) {
        const size_t base = z * plane;
        if (inside)
            above = u[base + plane + col];

        tile[ly * tw + lx] = cur;
        if (lx == 1)
            tile[ly * tw] = (gx > 0 && gy < ny) ? u[base + col - 1] : 0.0f;
        if (lx == bw)
            tile[ly * tw + bw + 1] = (gx + 1 < nx && gy < ny) ? u[base + col + 1] : 0.0f;
        if (ly == 1)
            tile[lx] = (gy > 0 && gx < nx) ? u[base + col - nx] : 0.0f;
        if (ly == bh)
            tile[(bh + 1) * tw + lx] = (gy + 1 < ny && gx < nx) ? u[base + col + nx] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        if (inside) {
            float v = cur;
            if (!face) {
                const float lap = tile[ly * tw + lx - 1] + tile[ly * tw + lx + 1]
                                + tile[(ly - 1) * tw + lx] + tile[(ly + 1) * tw + lx]
                                + below + above - 6.0f * cur;
                v = cur + r * lap;
            }
            u_new[base + col] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        below = cur;
        cur = above;
    }
}
