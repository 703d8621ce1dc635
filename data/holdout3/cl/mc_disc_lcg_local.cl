/* Monte Carlo estimate of the integral of exp(-(x^2 + y^2)) over the quarter unit disc.
 * Each work-item runs its own linear congruential generator from a seed, draws `samples`
 * points in the unit square and sums the integrand where the point falls inside the disc;
 * the work-group then adds its items' sums in local memory and writes one partial mean. */
#define WG 256

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void mc_disc_lcg_local(const int samples, __global const uint *seeds, __global float *partial)
{
    __local float sums[WG];
    const int lid = get_local_id(0);

    uint state = seeds[get_global_id(0)];
    float acc = 0.0f;
    for (int s = 0; s < samples; s++) {
        state = state * 1664525u + 1013904223u;
        const float px = (float)(state >> 8) * (1.0f / 16777216.0f);
        state = state * 1664525u + 1013904223u;
        const float py = (float)(state >> 8) * (1.0f / 16777216.0f);
        const float r2 = px * px + py * py;
        if (r2 < 1.0f)
            acc += exp(-r2);
    }

    sums[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = WG / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            sums[lid] += sums[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = sums[0] / ((float)samples * (float)WG);
}
