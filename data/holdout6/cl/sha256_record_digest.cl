/* SHA-256 (FIPS 180-4) digest of every record of a byte column, one record per work-item, as a deduplication
 * or content-addressing pass does it. Record i is bytes [offsets[i], offsets[i+1]) of `data`, any length
 * (empty records too) at any byte alignment. Whole 64-byte blocks are read four bytes at a time big-endian;
 * the last one or two blocks are assembled byte by byte with the 0x80 terminator and the 64-bit bit length
 * (the padding is done in the kernel, not on the host). The digest is written as eight uint words H0..H7. */
__constant uint K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

void sha256_compress(uint *h, uint *w)
{
    for (int t = 16; t < 64; t++)
        w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) + w[t - 16];

    uint a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        const uint t1 = hh + BSIG1(e) + CH(e, f, g) + K[t] + w[t];
        const uint t2 = BSIG0(a) + MAJ(a, b, c);
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

__kernel void sha256_record_digest(const int nrec,
                                   __global const int *offsets,
                                   __global const uchar *data,
                                   __global uint *digest)
{
    const int i = get_global_id(0);
    if (i >= nrec)
        return;

    __global const uchar *msg = data + offsets[i];
    const int len = offsets[i + 1] - offsets[i];
    uint h[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
    uint w[64];

    const int full = len / 64;
    for (int blk = 0; blk < full; blk++) {
        __global const uchar *m = msg + 64 * blk;
        for (int t = 0; t < 16; t++)
            w[t] = ((uint)m[4 * t] << 24) | ((uint)m[4 * t + 1] << 16) | ((uint)m[4 * t + 2] << 8) | (uint)m[4 * t + 3];
        sha256_compress(h, w);
    }

    /* the tail: the bytes after the last whole block, 0x80, zeros and the bit length in one or two blocks */
    const int tail = len - 64 * full;
    const int nlast = (tail + 9 <= 64) ? 1 : 2;
    const ulong bits = 8UL * (ulong)len;
    for (int blk = 0; blk < nlast; blk++) {
        for (int t = 0; t < 16; t++) {
            uint word = 0;
            for (int k = 0; k < 4; k++) {
                const int q = 64 * blk + 4 * t + k; /* byte position after the whole blocks */
                uint byte;
                if (q < tail)
                    byte = msg[64 * full + q];
                else if (q == tail)
                    byte = 0x80u;
                else
                    byte = 0u;
                word = (word << 8) | byte;
            }
            w[t] = word;
        }
        if (blk == nlast - 1) {
            w[14] = (uint)(bits >> 32);
            w[15] = (uint)bits;
        }
        sha256_compress(h, w);
    }

    for (int k = 0; k < 8; k++)
        digest[8 * i + k] = h[k];
}
