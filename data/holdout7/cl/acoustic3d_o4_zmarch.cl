/* One leapfrog time step of the 3-D constant-density acoustic wave equation used in seismic modelling,
 * 4th order in space, on a grid stored z-major (p[(z * ny + y) * nx + x]). The NDRange covers one
 * x-y plane; each work-item marches down its own z column, keeping the five z values of the stencil
 * in registers, while the work-group stages the current x-y plane with a two-cell halo in local
 * memory. vdt2 holds (v dt / h)^2 per cell. A Cerjan sponge of nsponge cells damps the wavefield near
 * every face; the outermost two cells, which the stencil cannot reach, are held at zero. */
#define C0 (-2.5f)
#define C1 (4.0f / 3.0f)
#define C2 (-1.0f / 12.0f)

inline float sponge(int i, int n, int nsponge)
{
    const int d = min(i, n - 1 - i);
    if (d >= nsponge)
        return 1.0f;
    const float a = 0.015f * (float)(nsponge - d);
    return exp(-a * a);
}

__kernel void acoustic3d_o4_zmarch(const int nx, const int ny, const int nz, const int nsponge,
                                   __global const float *p_prev, __global const float *p_cur,
                                   __global const float *vdt2, __global float *p_next,
                                   __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int wx = get_local_size(0), wy = get_local_size(1);
    const int gx = get_global_id(0), gy = get_global_id(1);
    const int tw = wx + 4;
    const int tcells = tw * (wy + 4);
    const int ox = get_group_id(0) * wx - 2, oy = get_group_id(1) * wy - 2;
    const int plane = nx * ny;
    const int inside = gx < nx && gy < ny;
    const int col = gy * nx + gx;

    float zm2 = 0.0f, zm1 = 0.0f, zc = 0.0f, zp1 = 0.0f, zp2 = 0.0f;
    if (inside) {
        zc = p_cur[col];
        if (nz > 1) zp1 = p_cur[plane + col];
        if (nz > 2) zp2 = p_cur[2 * plane + col];
    }
    const float dxy = inside ? sponge(gx, nx, nsponge) * sponge(gy, ny, nsponge) : 0.0f;
    const int edge_xy = gx < 2 || gy < 2 || gx >= nx - 2 || gy >= ny - 2;

    for (int z = 0; z < nz; z++) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = ly * wx + lx; k < tcells; k += wx * wy) {
            const int tx = ox + k % tw, ty = oy + k / tw;
            tile[k] = (tx >= 0 && tx < nx && ty >= 0 && ty < ny) ? p_cur[z * plane + ty * nx + tx] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (inside) {
            const int idx = z * plane + col;
            if (edge_xy || z < 2 || z >= nz - 2) {
                p_next[idx] = 0.0f;
            } else {
                const int t = (ly + 2) * tw + lx + 2;
                const float lap = 3.0f * C0 * zc
                    + C1 * (tile[t - 1] + tile[t + 1] + tile[t - tw] + tile[t + tw] + zm1 + zp1)
                    + C2 * (tile[t - 2] + tile[t + 2] + tile[t - 2 * tw] + tile[t + 2 * tw] + zm2 + zp2);
                const float damp = dxy * sponge(z, nz, nsponge);
                p_next[idx] = damp * (2.0f * zc - damp * p_prev[idx] + vdt2[idx] * lap);
            }
            zm2 = zm1;
            zm1 = zc;
            zc = zp1;
            zp1 = zp2;
            zp2 = (z + 3 < nz) ? p_cur[(z + 3) * plane + col] : 0.0f;
        }
    }
}
