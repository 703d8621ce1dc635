/* AES-128 in counter mode (the CTR of SP 800-38A with a 96-bit nonce and a 32-bit big-endian block
 * counter, as GCM uses it), T-table implementation. The work-group first copies the four 256-entry
 * T-tables (te: Te0 | Te1 | Te2 | Te3, OpenSSL's big-endian layout) to __local memory. Each work-item
 * then encrypts BPI counter blocks, block index blk = gid + k * global size, and XORs the keystream into
 * the data. Data and the 44 expanded round-key words are big-endian 32-bit words, four a block; the
 * counter wraps modulo 2^32. The last round takes S-box bytes out of the T-tables. */
#define BPI 4

#define ROUND(t0, t1, t2, t3, s0, s1, s2, s3, k)                                                   \
    t0 = T0[s0 >> 24] ^ T1[(s1 >> 16) & 0xff] ^ T2[(s2 >> 8) & 0xff] ^ T3[s3 & 0xff] ^ rk[k];      \
    t1 = T0[s1 >> 24] ^ T1[(s2 >> 16) & 0xff] ^ T2[(s3 >> 8) & 0xff] ^ T3[s0 & 0xff] ^ rk[k + 1];  \
    t2 = T0[s2 >> 24] ^ T1[(s3 >> 16) & 0xff] ^ T2[(s0 >> 8) & 0xff] ^ T3[s1 & 0xff] ^ rk[k + 2];  \
    t3 = T0[s3 >> 24] ^ T1[(s0 >> 16) & 0xff] ^ T2[(s1 >> 8) & 0xff] ^ T3[s2 & 0xff] ^ rk[k + 3];

uint last_round(uint a, uint b, uint c, uint d, __local const uint *T0, __local const uint *T1,
                __local const uint *T2, __local const uint *T3)
{
    return (T2[a >> 24] & 0xff000000u) ^ (T3[(b >> 16) & 0xff] & 0x00ff0000u)
         ^ (T0[(c >> 8) & 0xff] & 0x0000ff00u) ^ (T1[d & 0xff] & 0x000000ffu);
}

__kernel void aes128_ctr_ttable_local(const int nblk, const uint nonce0, const uint nonce1, const uint nonce2,
                                      const uint ctr0,
                                      __global const uint *rk,
                                      __global const uint *te,
                                      __global const uint *data_in,
                                      __global uint *data_out,
                                      __local uint *lte)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    for (int i = lid; i < 1024; i += lsz)
        lte[i] = te[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    __local const uint *T0 = lte;
    __local const uint *T1 = lte + 256;
    __local const uint *T2 = lte + 512;
    __local const uint *T3 = lte + 768;
    const int gid = get_global_id(0);
    const int gsz = get_global_size(0);

    for (int k = 0; k < BPI; k++) {
        const int blk = gid + k * gsz;
        if (blk >= nblk)
            break;
        uint s0 = nonce0 ^ rk[0];
        uint s1 = nonce1 ^ rk[1];
        uint s2 = nonce2 ^ rk[2];
        uint s3 = (ctr0 + (uint)blk) ^ rk[3];
        uint t0, t1, t2, t3;
        for (int r = 1; r < 9; r += 2) {
            ROUND(t0, t1, t2, t3, s0, s1, s2, s3, 4 * r)
            ROUND(s0, s1, s2, s3, t0, t1, t2, t3, 4 * r + 4)
        }
        ROUND(t0, t1, t2, t3, s0, s1, s2, s3, 36)
        s0 = last_round(t0, t1, t2, t3, T0, T1, T2, T3) ^ rk[40];
        s1 = last_round(t1, t2, t3, t0, T0, T1, T2, T3) ^ rk[41];
        s2 = last_round(t2, t3, t0, t1, T0, T1, T2, T3) ^ rk[42];
        s3 = last_round(t3, t0, t1, t2, T0, T1, T2, T3) ^ rk[43];

        const size_t w = (size_t)blk * 4;
        data_out[w] = data_in[w] ^ s0;
        data_out[w + 1] = data_in[w + 1] ^ s1;
        data_out[w + 2] = data_in[w + 2] ^ s2;
        data_out[w + 3] = data_in[w + 3] ^ s3;
    }
}
