/* One Jacobi sweep of a navigation cost field: the eikonal equation |grad u| = cost on a grid, solved by
 * repeated local Godunov updates (as in the fast iterative method). Each work-group stages its tile of the
 * current arrival times plus a one-cell halo in __local memory (cells outside the map read as UNREACHED),
 * then every cell takes the smaller of its old value and the upwind update from its cheapest horizontal
 * and vertical neighbours: the one-sided update when they differ by at least cost * h, else the two-sided
 * quadratic solution. Goal cells (u = 0) and obstacles (cost <= 0) keep their value. Cells that improved
 * by more than eps are counted, per group in __local and then once per group into the global counter, so
 * the host knows whether to sweep again. */
#define UNREACHED 1.0e10f

__kernel void eikonal_godunov_tile_local(const int width, const int height, const float h, const float eps,
                                         __global const float *u_in,
                                         __global const float *cost,
                                         __global float *u_out,
                                         __global int *changed,
                                         __local float *tile)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bw = get_local_size(0);
    const int bh = get_local_size(1);
    const int tw = bw + 2;
    const int x0 = get_group_id(0) * bw - 1;
    const int y0 = get_group_id(1) * bh - 1;
    __local int group_changed;

    if (lx == 0 && ly == 0)
        group_changed = 0;
    for (int k = ly * bw + lx; k < tw * (bh + 2); k += bw * bh) {
        const int gx = x0 + k % tw;
        const int gy = y0 + k / tw;
        tile[k] = (gx >= 0 && gx < width && gy >= 0 && gy < height) ? u_in[gy * width + gx] : UNREACHED;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < width && y < height) {
        const int c = (ly + 1) * tw + lx + 1;
        const float old = tile[c];
        const float f = cost[y * width + x];
        float u = old;
        if (f > 0.0f && old > 0.0f) {
            const float a = fmin(tile[c - 1], tile[c + 1]);
            const float b = fmin(tile[c - tw], tile[c + tw]);
            const float fh = f * h;
            float cand;
            if (fabs(a - b) >= fh)
                cand = fmin(a, b) + fh;
            else
                cand = 0.5f * (a + b + sqrt(2.0f * fh * fh - (a - b) * (a - b)));
            u = fmin(old, cand);
        }
        u_out[y * width + x] = u;
        if (old - u > eps)
            atomic_inc(&group_changed);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx == 0 && ly == 0 && group_changed > 0)
        atomic_add(changed, group_changed);
}
