/* Paired bootstrap of a loss ratio (sum of claims / sum of premiums) for many insurance portfolios.
 * 2-D NDRange: x = bootstrap replicate, y = portfolio. Portfolio g holds nobs policies, its premiums and
 * claims contiguous. Each replicate draws nobs policies with replacement; the draw k of replicate r is a
 * counter-based hash of (portfolio key, seed, r, k), so replicates are reproducible and independent of
 * the launch shape. The replicate's ratio goes to ratio[g * nrep + r]. */
uint mix32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__kernel void bootstrap_ratio_hash_2d(const int nobs, const int nrep, const int ngroup, const uint seed,
                                      __global const float *premium,
                                      __global const float *claims,
                                      __global const uint *group_key,
                                      __global float *ratio)
{
    const int r = get_global_id(0);
    const int g = get_global_id(1);
    if (r >= nrep || g >= ngroup)
        return;

    __global const float *p = premium + (size_t)g * nobs;
    __global const float *c = claims + (size_t)g * nobs;
    const uint base = mix32(group_key[g] ^ seed) ^ mix32((uint)r * 0x9e3779b9U + 1U);

    float sp = 0.0f, sc = 0.0f;
    for (int k = 0; k < nobs; k++) {
        const uint h = mix32(base + (uint)k * 0x85ebca6bU);
        const int j = (int)(h % (uint)nobs);
        sp += p[j];
        sc += c[j];
    }
    ratio[(size_t)g * nrep + r] = sp > 0.0f ? sc / sp : 0.0f;
}
