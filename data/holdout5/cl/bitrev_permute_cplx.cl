/* Bit-reversal permutation of a batch of complex vectors of length 2^logn, the reordering in front of
 * an in-order radix-2 FFT: out[v][j] = in[v][reverse(j)], reverse() mirroring the low logn bits. The
 * bits are reversed with the usual swap of halves, quarters, ... on a 32-bit word, then shifted down. */
static uint reverse_bits(uint v, int nbits)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    v = (v >> 16) | (v << 16);
    return v >> (32 - nbits);
}

__kernel void bitrev_permute_cplx(const int logn, const int nvec,
                                  __global const float2 *src, __global float2 *dst)
{
    const size_t gid = get_global_id(0);
    const uint n = 1u << logn;
    if (gid >= (size_t)nvec * n)
        return;

    const uint j = (uint)gid & (n - 1u);
    const size_t vec = gid >> logn;
    dst[gid] = src[(vec << logn) + reverse_bits(j, logn)];
}
