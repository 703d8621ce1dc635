/* Heston stochastic-volatility paths by full-truncation Euler, one path per work-item, ending in the
 * discounted payoff of a European call. The normal draws come from a counter-based hash (the PCG
 * output function of the path's key plus a draw counter) through Box-Muller, so a path needs no
 * stored generator state. */
uint pcg_hash(uint x)
{
    const uint state = x * 747796405u + 2891336453u;
    const uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float to_unit(uint h)
{
    return ((float)(h >> 8) + 0.5f) * (1.0f / 16777216.0f);
}

__kernel void heston_euler_hash(const int npaths, const int steps, const uint seed,
                                const float s0, const float v0, const float rate,
                                const float kappa, const float theta, const float xi, const float rho,
                                const float strike, const float expiry,
                                __global float *payoff)
{
    const int p = get_global_id(0);
    if (p >= npaths)
        return;

    const float dt = expiry / steps;
    const float sqdt = sqrt(dt);
    const float rho_c = sqrt(1.0f - rho * rho);
    const uint key = pcg_hash(seed ^ (uint)p);

    float log_s = log(s0);
    float v = v0;
    for (int t = 0; t < steps; t++) {
        const float u1 = to_unit(pcg_hash(key + 2u * (uint)t));
        const float u2 = to_unit(pcg_hash(key + 2u * (uint)t + 1u));
        const float rad = sqrt(-2.0f * log(u1));
        const float z1 = rad * cos(6.28318531f * u2);
        const float z2 = rad * sin(6.28318531f * u2);
        const float vp = fmax(v, 0.0f);
        const float sv = sqrt(vp) * sqdt;
        log_s += (rate - 0.5f * vp) * dt + sv * z1;
        v += kappa * (theta - vp) * dt + xi * sv * (rho * z1 + rho_c * z2);
    }
    payoff[p] = exp(-rate * expiry) * fmax(exp(log_s) - strike, 0.0f);
}
