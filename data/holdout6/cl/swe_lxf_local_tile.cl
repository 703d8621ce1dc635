/* One Lax-Friedrichs step of the 2-D shallow-water equations on a flat bottom, state (h, hu, hv) in
 * three row-major planes. Each work-group copies its block plus a one-cell halo of all three fields
 * into local memory; outside the basin the halo mirrors the edge cell with the normal momentum
 * reversed (reflecting walls). Every cell then averages its four neighbours and subtracts the centred
 * flux differences. Dry cells (h below hdry) carry no velocity, only the hydrostatic pressure term.
 * A depth that the scheme drives negative is clamped to zero. */
#define GRAV 9.81f

__kernel void swe_lxf_local_tile(const int nx, const int ny, const float dt_dx, const float dt_dy,
                                 const float hdry,
                                 __global const float *h, __global const float *hu, __global const float *hv,
                                 __global float *h_out, __global float *hu_out, __global float *hv_out,
                                 __local float *t_h, __local float *t_hu, __local float *t_hv)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int wx = get_local_size(0), wy = get_local_size(1);
    const int tw = wx + 2;
    const int tile_cells = tw * (wy + 2);
    const int ox = get_group_id(0) * wx - 1;
    const int oy = get_group_id(1) * wy - 1;

    for (int k = ly * wx + lx; k < tile_cells; k += wx * wy) {
        int gx = ox + k % tw;
        int gy = oy + k / tw;
        float sx = 1.0f, sy = 1.0f;
        if (gx < 0) { gx = 0; sx = -1.0f; }
        else if (gx >= nx) { gx = nx - 1; sx = -1.0f; }
        if (gy < 0) { gy = 0; sy = -1.0f; }
        else if (gy >= ny) { gy = ny - 1; sy = -1.0f; }
        const int g = gy * nx + gx;
        t_h[k] = h[g];
        t_hu[k] = sx * hu[g];
        t_hv[k] = sy * hv[g];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;

    const int k = (ly + 1) * tw + lx + 1;
    const int nb[4] = {k + 1, k - 1, k + tw, k - tw};  /* east, west, north, south */
    float fh[2], fu[2], fv[2], gh[2], gu[2], gv[2];
    float sum_h = 0.0f, sum_u = 0.0f, sum_v = 0.0f;

    for (int n = 0; n < 4; n++) {
        const float d = t_h[nb[n]], mu = t_hu[nb[n]], mv = t_hv[nb[n]];
        sum_h += d; sum_u += mu; sum_v += mv;
        const float pres = 0.5f * GRAV * d * d;
        const int wet = d >= hdry;
        const float u = wet ? mu / d : 0.0f;
        const float v = wet ? mv / d : 0.0f;
        if (n < 2) {          /* x-flux of the east / west neighbour */
            fh[n] = wet ? mu : 0.0f;
            fu[n] = mu * u + pres;
            fv[n] = mv * u;
        } else {              /* y-flux of the north / south neighbour */
            gh[n - 2] = wet ? mv : 0.0f;
            gu[n - 2] = mu * v;
            gv[n - 2] = mv * v + pres;
        }
    }

    const float ax = 0.5f * dt_dx, ay = 0.5f * dt_dy;
    const int g = y * nx + x;
    h_out[g] = fmax(0.25f * sum_h - ax * (fh[0] - fh[1]) - ay * (gh[0] - gh[1]), 0.0f);
    hu_out[g] = 0.25f * sum_u - ax * (fu[0] - fu[1]) - ay * (gu[0] - gu[1]);
    hv_out[g] = 0.25f * sum_v - ax * (fv[0] - fv[1]) - ay * (gv[0] - gv[1]);
}
