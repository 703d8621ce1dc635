#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One tau-leap of a stochastic SIRS model on a metapopulation of npatch patches, in double precision. state_in
 * holds (S, I, R) of every patch as uint32 counts. Residents of patch i spend the fractions w[k] of their time in
 * the patches col[k] (k = row_ptr[i] .. row_ptr[i+1] - 1, CSR) and the rest at home, so their force of infection
 * is beta times the time-weighted prevalence of the patches they visit. Over a leap of length tau the patch draws
 * new infections ~ Bin(S, 1 - exp(-lambda tau)), recoveries ~ Bin(I, 1 - exp(-gamma tau)) and loss of immunity
 * ~ Bin(R, 1 - exp(-omega tau)). Binomial draws use inversion (BINV) when the mean is small and a rounded normal
 * (Box-Muller) otherwise; uniforms come from a counter-based hash of (seed + step, patch, draw), so a run is
 * reproducible whatever the launch order. New states go to state_out, the leap's new infections to incid. */

#define BINV_MAX_MEAN 30.0

uint hash3(uint a, uint b, uint c)
{
    uint h = a * 0x9E3779B1u ^ b * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

double uniform01(uint key, uint patch, uint ctr)
{
    return ((double)hash3(key, patch, ctr) + 0.5) * (1.0 / 4294967296.0);
}

uint binom_draw(uint n, double p, uint key, uint patch, uint ctr)
{
    if (n == 0u || p <= 0.0)
        return 0u;
    const double q = 1.0 - p;
    const double mean = (double)n * p;
    if (mean < BINV_MAX_MEAN) {
        /* sequential search of the cdf from 0 */
        double u = uniform01(key, patch, ctr);
        const double s = p / q, a = (n + 1) * s;
        double r = pow(q, (double)n);
        uint x = 0u;
        while (u > r && x < n) {
            u -= r;
            x++;
            r *= a / x - s;
        }
        return x;
    }
    const double u1 = uniform01(key, patch, ctr);
    const double u2 = uniform01(key, patch, ctr + 1u);
    const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    const double x = rint(mean + z * sqrt(mean * q));
    return (uint)clamp(x, 0.0, (double)n);
}

__kernel void metapop_tau_leap_binv_fp64(const int npatch, const uint seed, const int step,
                                         const double beta, const double gamma, const double omega,
                                         const double tau,
                                         __global const int *row_ptr,
                                         __global const int *col,
                                         __global const double *w,
                                         __global const uint *state_in,
                                         __global uint *state_out,
                                         __global uint *incid)
{
    const int i = get_global_id(0);
    if (i >= npatch)
        return;

    const uint S = state_in[3 * i], I = state_in[3 * i + 1], R = state_in[3 * i + 2];
    const uint N = S + I + R;
    const int k0 = row_ptr[i], k1 = row_ptr[i + 1];

    double away = 0.0, prev = 0.0;
    for (int k = k0; k < k1; k++) {
        const int j = col[k];
        const uint nj = state_in[3 * j] + state_in[3 * j + 1] + state_in[3 * j + 2];
        away += w[k];
        if (nj > 0u)
            prev += w[k] * (double)state_in[3 * j + 1] / (double)nj;
    }
    if (N > 0u)
        prev += (1.0 - away) * (double)I / (double)N;

    const uint key = seed + (uint)step;
    const uint inf = binom_draw(S, 1.0 - exp(-beta * prev * tau), key, (uint)i, 0u);
    const uint rec = binom_draw(I, 1.0 - exp(-gamma * tau), key, (uint)i, 2u);
    const uint wan = binom_draw(R, 1.0 - exp(-omega * tau), key, (uint)i, 4u);

    state_out[3 * i] = S - inf + wan;
    state_out[3 * i + 1] = I + inf - rec;
    state_out[3 * i + 2] = R + rec - wan;
    incid[i] = inf;
}
