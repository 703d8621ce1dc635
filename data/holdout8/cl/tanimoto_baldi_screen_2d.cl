/* Similarity search of query molecules against a compound library by Tanimoto similarity of their
 * hashed structural fingerprints (nwords 32-bit words per molecule, bit counts precomputed).
 * 2-D NDRange: x = library compound, y = query. The Swamidass-Baldi bound min(a, b) / max(a, b) caps
 * the Tanimoto of two fingerprints with a and b bits set, so pairs whose bound is below the threshold
 * are skipped without reading their fingerprints. Otherwise the common bits are counted with popcount
 * and c / (a + b - c) is stored if it reaches the threshold; everything else stores 0. The row of
 * query q is sim[q * ndb ...]. */
__kernel void tanimoto_baldi_screen_2d(const int ndb, const int nquery, const int nwords, const float thresh,
                                       __global const uint *db_fp,
                                       __global const uint *db_count,
                                       __global const uint *q_fp,
                                       __global const uint *q_count,
                                       __global float *sim)
{
    const int d = get_global_id(0);
    const int q = get_global_id(1);
    if (d >= ndb || q >= nquery)
        return;

    const uint a = db_count[d];
    const uint b = q_count[q];
    const uint lo = min(a, b), hi = max(a, b);
    float t = 0.0f;
    if (hi > 0u && (float)lo >= thresh * (float)hi) {
        __global const uint *fa = db_fp + (size_t)d * nwords;
        __global const uint *fb = q_fp + (size_t)q * nwords;
        uint c = 0u;
        for (int k = 0; k < nwords; k++)
            c += popcount(fa[k] & fb[k]);
        const uint u = a + b - c;
        if ((float)c >= thresh * (float)u)
            t = (float)c / (float)u;
    }
    sim[(size_t)q * ndb + d] = t;
}
