/* Measurement shots from a simulated state with readout noise: the host has turned the final state's |a|^2 into
 * a cumulative distribution cdf[0 .. dim-1] (non-decreasing, cdf[dim-1] = 1). A work-item per shot draws a
 * counter-based random uint (a murmur-style finaliser of seed and shot number), makes a 24-bit uniform u in
 * [0, 1), binary-searches the first basis state whose cdf exceeds u, then models readout error: each of the nq
 * measured bits flips when the next random draw's high 16 bits fall below flip_q16 (a probability in 1/65536).
 * The outcome bit string is stored as a uint. */
uint mix32(uint h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__kernel void qsim_shot_readout_bsearch_u32(const int nshot, const int dim, const int nq, const uint seed,
                                            const uint flip_q16,
                                            __global const float *cdf,
                                            __global uint *shot)
{
    const int i = get_global_id(0);
    if (i >= nshot)
        return;

    uint h = mix32(seed ^ mix32((uint)i * 0x9e3779b9u + 1u));
    const float u = (float)(h >> 8) * (1.0f / 16777216.0f);

    int lo = 0, hi = dim - 1;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }

    uint z = (uint)lo;
    for (int b = 0; b < nq; ++b) {
        h = mix32(h + 0x6d2b79f5u);
        if ((h >> 16) < flip_q16)
            z ^= 1u << b;
    }
    shot[i] = z;
}
