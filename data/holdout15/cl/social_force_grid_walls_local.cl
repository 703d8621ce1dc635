/* One explicit step of the Helbing social-force model of pedestrians in a gx x gy grid of square cells of side
 * 1 / inv_cell (at least the interaction cutoff). Pedestrians are stored sorted by cell, cell c holding
 * cell_start[c] .. cell_start[c + 1] - 1; positions, velocities and goals are float2 pairs. A work-item per
 * pedestrian sums the driving term (v0 e - v) / tau toward its goal, the exponential repulsion
 * a_ped exp((2 radius - d) / b_ped) n of every other pedestrian closer than the cutoff in the 3 x 3 cells around
 * its own, weighted by the anisotropy lambda + (1 - lambda) (1 + cos phi) / 2, and the repulsion of every wall
 * segment nearer than the cutoff; the work-group first copies the nwall segments (x0, y0, x1, y1) into __local
 * memory. The new velocity is capped at vcap and the pedestrian moves by dt v. */

__kernel void social_force_grid_walls_local(const int nped, const int gx, const int gy, const float inv_cell,
                                            const int nwall, const float dt, const float v0, const float tau,
                                            const float vcap, const float a_ped, const float b_ped,
                                            const float a_wall, const float b_wall, const float radius,
                                            const float cutoff, const float lambda_,
                                            __global const uint *cell_start,
                                            __global const float *pos,
                                            __global const float *vel,
                                            __global const float *goal,
                                            __global const float *walls,
                                            __global float *pos_out,
                                            __global float *vel_out,
                                            __local float *wl)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    for (int w = lid; w < 4 * nwall; w += get_local_size(0))
        wl[w] = walls[w];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i >= nped)
        return;

    const float2 xi = vload2(i, pos);
    const float2 vi = vload2(i, vel);
    const float2 to_goal = vload2(i, goal) - xi;
    const float lg = length(to_goal);
    const float2 e = lg > 1e-6f ? to_goal / lg : (float2)(0.0f, 0.0f);

    float2 f = (v0 * e - vi) / tau;

    const int cx = clamp((int)(xi.x * inv_cell), 0, gx - 1);
    const int cy = clamp((int)(xi.y * inv_cell), 0, gy - 1);
    const float cut2 = cutoff * cutoff;
    for (int yy = max(cy - 1, 0); yy <= min(cy + 1, gy - 1); yy++) {
        for (int xx = max(cx - 1, 0); xx <= min(cx + 1, gx - 1); xx++) {
            const int c = yy * gx + xx;
            const uint j1 = cell_start[c + 1];
            for (uint j = cell_start[c]; j < j1; j++) {
                if ((int)j == i)
                    continue;
                const float2 dxy = xi - vload2(j, pos);
                const float d2 = dot(dxy, dxy);
                if (d2 >= cut2)
                    continue;
                const float d = fmax(sqrt(d2), 1e-3f);
                const float2 n = dxy / d;
                const float cphi = -dot(n, e);
                const float aniso = lambda_ + (1.0f - lambda_) * 0.5f * (1.0f + cphi);
                f += a_ped * exp((2.0f * radius - d) / b_ped) * aniso * n;
            }
        }
    }

    for (int w = 0; w < nwall; w++) {
        const float2 p0 = (float2)(wl[4 * w], wl[4 * w + 1]);
        const float2 seg = (float2)(wl[4 * w + 2], wl[4 * w + 3]) - p0;
        const float t = clamp(dot(xi - p0, seg) / dot(seg, seg), 0.0f, 1.0f);
        const float2 dxy = xi - (p0 + t * seg);
        const float d2 = dot(dxy, dxy);
        if (d2 >= cut2)
            continue;
        const float d = fmax(sqrt(d2), 1e-3f);
        f += a_wall * exp((radius - d) / b_wall) * (dxy / d);
    }

    float2 vn = vi + dt * f;
    const float s = length(vn);
    if (s > vcap)
        vn *= vcap / s;
    vstore2(vn, i, vel_out);
    vstore2(xi + dt * vn, i, pos_out);
}
