/* Forward number-theoretic transform of ML-DSA (Dilithium) polynomials: 256 coefficients over Z_q, q = 8380417,
 * in uint32, fully reduced in [0, q). A work-group transforms one polynomial at a time (looping over polynomials
 * by get_num_groups): the coefficients are loaded into __local memory, the 8 Cooley-Tukey layers (len = 128 .. 1)
 * run between barriers, a work-item per butterfly, and the result (bit-reversed order, as the reference code) is
 * written back. The twiddles zetas[k] are in Montgomery form (zeta * 2^32 mod q), copied into __local once per
 * work-group, and zeta * a is formed by a 32-bit Montgomery reduction of the 64-bit product. */
#define DQ 8380417u
#define QINV 4236238847u /* -q^-1 mod 2^32 */

inline uint mont_mul(uint a, uint b)
{
    const ulong p = (ulong)a * b;
    const uint m = (uint)p * QINV;
    uint t = (uint)((p + (ulong)m * DQ) >> 32);
    return t >= DQ ? t - DQ : t;
}

__kernel void mldsa_ntt_mont_local_u32(const int npoly,
                                       __global const uint *zetas,
                                       __global const uint *coef_in,
                                       __global uint *coef_out,
                                       __local uint *zl,
                                       __local uint *a)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    for (int i = lid; i < 256; i += lsz)
        zl[i] = zetas[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int p = get_group_id(0); p < npoly; p += get_num_groups(0)) {
        __global const uint *src = coef_in + (size_t)p * 256;
        for (int i = lid; i < 256; i += lsz)
            a[i] = src[i];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int len = 128; len >= 1; len >>= 1) {
            for (int b = lid; b < 128; b += lsz) {
                const int grp = b / len;
                const int j = grp * 2 * len + (b - grp * len);
                const uint zeta = zl[128 / len + grp];
                const uint t = mont_mul(zeta, a[j + len]);
                const uint x = a[j];
                a[j + len] = x >= t ? x - t : x + DQ - t;
                const uint s = x + t;
                a[j] = s >= DQ ? s - DQ : s;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        __global uint *dst = coef_out + (size_t)p * 256;
        for (int i = lid; i < 256; i += lsz)
            dst[i] = a[i];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
