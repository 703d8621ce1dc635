/* Hashed feature crosses of a click-through-rate model (Wide & Deep / DLRM style), the embedding lookup for a
 * batch of impressions. Every sample has nfeat categorical features given as raw uint32 ids (already hashed
 * strings, 0 = missing value). The model crosses the feature pairs (cross_a[c], cross_b[c]), c < ncross: a cross
 * whose two values are both present is hashed (multiply-xorshift on uint32, salted by the cross's index) into
 * one of nrows buckets of a shared hashed embedding table (nrows x dim, row-major). The sample's output row is
 * the mean of the gathered rows over its present crosses, zeros when none is present. 2-D NDRange (embedding
 * column, sample): every work-item hashes its sample's crosses itself and reads one column of each row. */
inline uint cross_hash(uint a, uint b, uint c)
{
    uint h = a * 0x9E3779B1u + (c + 1u) * 0x27D4EB2Fu;
    h ^= h >> 15;
    h += b * 0x85EBCA77u;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

__kernel void cross_hash_embed_mean_2d(const int nsample, const int nfeat, const int ncross, const int dim,
                                       const uint nrows,
                                       __global const uint *ids,
                                       __global const int *cross_a,
                                       __global const int *cross_b,
                                       __global const float *table,
                                       __global float *out)
{
    const int d = get_global_id(0);
    const int s = get_global_id(1);
    if (d >= dim || s >= nsample)
        return;

    __global const uint *feat = ids + (size_t)s * nfeat;
    float sum = 0.0f;
    int n = 0;
    for (int c = 0; c < ncross; c++) {
        const uint a = feat[cross_a[c]];
        const uint b = feat[cross_b[c]];
        if (a == 0u || b == 0u)
            continue;
        const uint bucket = cross_hash(a, b, (uint)c) % nrows;
        sum += table[(size_t)bucket * dim + d];
        n++;
    }
    out[(size_t)s * dim + d] = (n > 0) ? sum / (float)n : 0.0f;
}
