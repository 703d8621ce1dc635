/* Exact seed lookup in an FM-index (the backward search of BWA and Bowtie), one work-item per seed. The BWT
 * of the reference plus its terminator is packed 2 bits a symbol, 16 to a uint word, first symbol in the high
 * bits; the terminator's slot holds code 0 and its row is fm_meta[4]; fm_meta[5] is the number of rows and
 * fm_meta[0..3] the C array (1 + the number of symbols smaller than the code). occ holds a checkpoint every 64
 * rows: the count of each of A C G T before row 64 * b. Occ(c, i) is the checkpoint plus a popcount of the
 * matching 2-bit slots of up to four words. A seed is seed_len bases (2-bit codes, 16 to a word, first base
 * high, words_per_seed words) searched from its last base; the search stops when the suffix-array interval
 * becomes empty. Out: the interval [sa_lo, sa_hi) of the longest matching suffix of the seed and its length. */
#define CKPT_SHIFT 6

uint occ_rank(__global const uint *bwt, __global const uint *occ, const uint primary, const uint c,
              const uint i)
{
    const uint blk = i >> CKPT_SHIFT;
    uint n = occ[blk * 4 + c];
    const uint pattern = c * 0x55555555u;
    uint w = blk << (CKPT_SHIFT - 4);
    const uint wend = i >> 4;
    for (; w < wend; w++) {
        const uint x = bwt[w] ^ pattern;
        n += popcount(~(x | (x >> 1)) & 0x55555555u);
    }
    const uint rest = i & 15u;
    if (rest) {
        const uint x = bwt[w] ^ pattern;
        const uint keep = 0xffffffffu << (32u - 2u * rest);
        n += popcount(~(x | (x >> 1)) & 0x55555555u & keep);
    }
    if (c == 0u && primary < i && (primary >> CKPT_SHIFT) == blk)
        n--;
    return n;
}

__kernel void fm_backward_occ64_u32(const int nseed, const int seed_len, const int words_per_seed,
                                    __global const uint *seeds,
                                    __global const uint *bwt,
                                    __global const uint *occ,
                                    __global const uint *fm_meta,
                                    __global int *sa_lo,
                                    __global int *sa_hi,
                                    __global int *match_len)
{
    const int s = get_global_id(0);
    if (s >= nseed)
        return;

    const uint primary = fm_meta[4];
    uint lo = 0u, hi = fm_meta[5];
    int len = 0;
    __global const uint *seed = seeds + (size_t)s * words_per_seed;
    for (int k = seed_len - 1; k >= 0; k--) {
        const uint c = (seed[k >> 4] >> (30 - 2 * (k & 15))) & 3u;
        const uint base = fm_meta[c];
        const uint nlo = base + occ_rank(bwt, occ, primary, c, lo);
        const uint nhi = base + occ_rank(bwt, occ, primary, c, hi);
        if (nlo >= nhi)
            break;
        lo = nlo;
        hi = nhi;
        len++;
    }
    sa_lo[s] = (int)lo;
    sa_hi[s] = (int)hi;
    match_len[s] = len;
}
