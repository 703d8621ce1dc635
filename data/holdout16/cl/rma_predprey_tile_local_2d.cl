/* One explicit Euler step of a spatial Rosenzweig-MacArthur predator-prey model on an nx x ny landscape:
 *   dN/dt = r N (1 - N / K) - a N P / (1 + a h N) + Dn lap(N)
 *   dP/dt = e a N P / (1 + a h N) - m P           + Dp lap(P)
 * with a per-cell carrying capacity K (habitat quality; K <= 0 marks water or built land, where both species die
 * out at once and which the neighbours see as empty) and zero-flux borders (edge cells replicated). The diffusion
 * coefficients are already divided by the squared cell size. Every work-group of the 2-D NDRange stages its tile
 * of both fields plus a one-cell halo in __local memory, synchronises, and every item applies the 5-point
 * Laplacian and the reaction terms; densities are kept non-negative. */

__kernel void rma_predprey_tile_local_2d(const int nx, const int ny, const float dt,
                                         const float dn, const float dp, const float r,
                                         const float a, const float h, const float e, const float m,
                                         __global const float *K,
                                         __global const float *prey_in,
                                         __global const float *pred_in,
                                         __global float *prey_out,
                                         __global float *pred_out,
                                         __local float *tn,
                                         __local float *tp)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int wx = get_local_size(0), wy = get_local_size(1);
    const int x = get_global_id(0), y = get_global_id(1);
    const int x0 = get_group_id(0) * wx - 1, y0 = get_group_id(1) * wy - 1;
    const int tw = wx + 2, th = wy + 2;

    for (int t = ly * wx + lx; t < tw * th; t += wx * wy) {
        const int gx = clamp(x0 + t % tw, 0, nx - 1);
        const int gy = clamp(y0 + t / tw, 0, ny - 1);
        const size_t g = (size_t)gy * nx + gx;
        tn[t] = prey_in[g];
        tp[t] = pred_in[g];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x >= nx || y >= ny)
        return;

    const size_t g = (size_t)y * nx + x;
    const float k = K[g];
    if (k <= 0.0f) {
        prey_out[g] = 0.0f;
        pred_out[g] = 0.0f;
        return;
    }

    const int c = (ly + 1) * tw + lx + 1;
    const float n = tn[c], p = tp[c];
    const float lapn = tn[c - 1] + tn[c + 1] + tn[c - tw] + tn[c + tw] - 4.0f * n;
    const float lapp = tp[c - 1] + tp[c + 1] + tp[c - tw] + tp[c + tw] - 4.0f * p;

    const float feed = a * n * p / (1.0f + a * h * n);
    const float dndt = r * n * (1.0f - n / k) - feed + dn * lapn;
    const float dpdt = e * feed - m * p + dp * lapp;

    prey_out[g] = fmax(n + dt * dndt, 0.0f);
    pred_out[g] = fmax(p + dt * dpdt, 0.0f);
}
