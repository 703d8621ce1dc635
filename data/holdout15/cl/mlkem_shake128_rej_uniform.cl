/* Expansion of the public matrix of ML-KEM (Kyber): entry (i, j) of key s's k x k matrix is the polynomial whose
 * 256 coefficients are sampled uniformly below q = 3329 from SHAKE128(rho_s || j || i). One work-item per matrix
 * entry absorbs the 34-byte input into a Keccak-f[1600] state of 25 ulong lanes (SHAKE padding 0x1F .. 0x80 in the
 * 168-byte rate), then squeezes rate blocks, splitting every 3 bytes into two 12-bit candidates and keeping those
 * below q, until 256 coefficients are accepted (a data-dependent number of permutations). rho is 8 little-endian
 * uint32 words per key; the entry's coefficients go out as int16 and the number of blocks it squeezed as int. */
#define KQ 3329
#define RATE 168

__constant ulong keccak_rc[24] = {
    0x0000000000000001UL, 0x0000000000008082UL, 0x800000000000808aUL, 0x8000000080008000UL,
    0x000000000000808bUL, 0x0000000080000001UL, 0x8000000080008081UL, 0x8000000000008009UL,
    0x000000000000008aUL, 0x0000000000000088UL, 0x0000000080008009UL, 0x000000008000000aUL,
    0x000000008000808bUL, 0x800000000000008bUL, 0x8000000000008089UL, 0x8000000000008003UL,
    0x8000000000008002UL, 0x8000000000000080UL, 0x000000000000800aUL, 0x800000008000000aUL,
    0x8000000080008081UL, 0x8000000000008080UL, 0x0000000080000001UL, 0x8000000080008008UL};
__constant int keccak_rotc[24] = {1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14,
                                  27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44};
__constant int keccak_piln[24] = {10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4,
                                  15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1};

void keccak_f1600(ulong *st)
{
    ulong bc[5];
    for (int r = 0; r < 24; ++r) {
        /* theta */
        for (int i = 0; i < 5; ++i)
            bc[i] = st[i] ^ st[i + 5] ^ st[i + 10] ^ st[i + 15] ^ st[i + 20];
        for (int i = 0; i < 5; ++i) {
            const ulong t = bc[(i + 4) % 5] ^ rotate(bc[(i + 1) % 5], (ulong)1);
            for (int j = 0; j < 25; j += 5)
                st[j + i] ^= t;
        }
        /* rho and pi */
        ulong t = st[1];
        for (int i = 0; i < 24; ++i) {
            const int j = keccak_piln[i];
            const ulong tmp = st[j];
            st[j] = rotate(t, (ulong)keccak_rotc[i]);
            t = tmp;
        }
        /* chi */
        for (int j = 0; j < 25; j += 5) {
            for (int i = 0; i < 5; ++i)
                bc[i] = st[j + i];
            for (int i = 0; i < 5; ++i)
                st[j + i] ^= (~bc[(i + 1) % 5]) & bc[(i + 2) % 5];
        }
        /* iota */
        st[0] ^= keccak_rc[r];
    }
}

inline uint state_byte(const ulong *st, int pos)
{
    return (uint)(st[pos >> 3] >> (8 * (pos & 7))) & 0xFFu;
}

__kernel void mlkem_shake128_rej_uniform(const int nentries, const int k,
                                         __global const uint *rho,
                                         __global short *a_hat,
                                         __global int *nblocks)
{
    const int e = get_global_id(0);
    if (e >= nentries)
        return;
    const int key = e / (k * k);
    const int i = (e / k) % k;
    const int j = e % k;

    ulong st[25];
    for (int l = 0; l < 25; ++l)
        st[l] = 0;
    __global const uint *seed = rho + 8 * key;
    for (int l = 0; l < 4; ++l)
        st[l] = (ulong)seed[2 * l] | ((ulong)seed[2 * l + 1] << 32);
    st[4] = (ulong)j | ((ulong)i << 8) | (0x1FUL << 16); /* bytes 32, 33: j, i; then the SHAKE pad */
    st[RATE / 8 - 1] ^= 0x8000000000000000UL;

    __global short *out = a_hat + (size_t)e * 256;
    int ctr = 0, blocks = 0;
    while (ctr < 256) {
        keccak_f1600(st);
        blocks++;
        for (int pos = 0; pos + 3 <= RATE && ctr < 256; pos += 3) {
            const uint b0 = state_byte(st, pos);
            const uint b1 = state_byte(st, pos + 1);
            const uint b2 = state_byte(st, pos + 2);
            const int d1 = (int)(b0 | ((b1 & 0x0Fu) << 8));
            const int d2 = (int)((b1 >> 4) | (b2 << 4));
            if (d1 < KQ)
                out[ctr++] = (short)d1;
            if (d2 < KQ && ctr < 256)
                out[ctr++] = (short)d2;
        }
    }
    nblocks[e] = blocks;
}
