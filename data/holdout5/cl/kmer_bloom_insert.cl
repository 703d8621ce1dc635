/* Inserts every canonical k-mer of a DNA sequence into a Bloom filter (k-mer counting pre-filter).
 * Each work-item owns `chunk` consecutive k-mer start positions and rolls the 2-bit forward code and the
 * reverse-complement code along them (k <= 31, so both fit in a ulong); a base other than ACGT restarts
 * the window. The canonical k-mer (the smaller of the two codes) is hashed once with the murmur3 64-bit
 * finaliser and split into two 32-bit halves for double hashing: bit (h1 + t * h2) mod nbits is set for
 * t = 0 .. nhash-1 with atomic_or. */
ulong fmix64(ulong h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdUL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53UL;
    h ^= h >> 33;
    return h;
}

__kernel void kmer_bloom_insert(const int nbases,
                                const int k,
                                const int chunk,
                                const uint nbits,
                                const int nhash,
                                __global const uchar *seq,
                                __global uint *bloom)
{
    const int first = get_global_id(0) * chunk;
    const int nkmers = nbases - k + 1;
    if (first >= nkmers)
        return;
    const int end = min(first + chunk, nkmers) + k - 1; /* one past the last base read */

    const ulong kmask = (1UL << (2 * k)) - 1;
    const int top = 2 * (k - 1);
    ulong fwd = 0, rev = 0;
    int run = 0;
    for (int p = first; p < end; p++) {
        ulong code;
        switch (seq[p]) {
        case 'A': case 'a': code = 0; break;
        case 'C': case 'c': code = 1; break;
        case 'G': case 'g': code = 2; break;
        case 'T': case 't': code = 3; break;
        default:
            run = 0;
            continue;
        }
        fwd = ((fwd << 2) | code) & kmask;
        rev = (rev >> 2) | ((3 - code) << top);
        if (++run < k)
            continue;

        const ulong h = fmix64(fwd < rev ? fwd : rev);
        const uint h1 = (uint)h;
        const uint h2 = (uint)(h >> 32) | 1u;
        for (int t = 0; t < nhash; t++) {
            const uint bit = (h1 + (uint)t * h2) % nbits;
            atomic_or(&bloom[bit >> 5], 1u << (bit & 31));
        }
    }
}
