/* ChaCha20 (RFC 8439) encryption of a batch of packets, as a VPN or TLS offload engine does it. Packet p owns
 * max_blocks 64-byte blocks of the plaintext buffer (little-endian uint words) and is length[p] bytes long; it is
 * encrypted with key key_index[p] of the key table and its own 96-bit nonce, block b with block counter
 * counter0 + b. The NDRange is 2-D: dimension 0 the packet, dimension 1 the block within the packet. Blocks past
 * a packet's end are skipped, and the last block's keystream is masked to the packet's length, so the cipher text
 * past the end stays zero. `rounds` is 20 for ChaCha20 (8 and 12 give the reduced-round variants). */
#define ROTL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

#define QUARTER_ROUND(a, b, c, d) \
    do {                          \
        a += b;                   \
        d ^= a;                   \
        d = ROTL32(d, 16);        \
        c += d;                   \
        b ^= c;                   \
        b = ROTL32(b, 12);        \
        a += b;                   \
        d ^= a;                   \
        d = ROTL32(d, 8);         \
        c += d;                   \
        b ^= c;                   \
        b = ROTL32(b, 7);         \
    } while (0)

__kernel void chacha20_packet_xor_2d(const int npackets,
                                     const int max_blocks,
                                     const int rounds,
                                     const uint counter0,
                                     __global const uint *keys,
                                     __global const int *key_index,
                                     __global const uint *nonces,
                                     __global const int *length,
                                     __global const uint *plain,
                                     __global uint *cipher)
{
    const int p = get_global_id(0);
    const int blk = get_global_id(1);
    if (p >= npackets || blk >= max_blocks)
        return;
    const int remaining = length[p] - 64 * blk; /* bytes of this packet from the block's start */
    if (remaining <= 0)
        return;

    uint s[16];
    s[0] = 0x61707865u; /* "expand 32-byte k" */
    s[1] = 0x3320646eu;
    s[2] = 0x79622d32u;
    s[3] = 0x6b206574u;
    __global const uint *key = keys + 8 * key_index[p];
    for (int i = 0; i < 8; i++)
        s[4 + i] = key[i];
    s[12] = counter0 + (uint)blk;
    s[13] = nonces[3 * p + 0];
    s[14] = nonces[3 * p + 1];
    s[15] = nonces[3 * p + 2];

    uint x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6], x7 = s[7];
    uint x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12], x13 = s[13], x14 = s[14], x15 = s[15];
    for (int r = 0; r < rounds; r += 2) {
        QUARTER_ROUND(x0, x4, x8, x12); /* column round */
        QUARTER_ROUND(x1, x5, x9, x13);
        QUARTER_ROUND(x2, x6, x10, x14);
        QUARTER_ROUND(x3, x7, x11, x15);
        QUARTER_ROUND(x0, x5, x10, x15); /* diagonal round */
        QUARTER_ROUND(x1, x6, x11, x12);
        QUARTER_ROUND(x2, x7, x8, x13);
        QUARTER_ROUND(x3, x4, x9, x14);
    }
    uint ks[16] = {x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15};

    const size_t base = ((size_t)p * max_blocks + blk) * 16;
    const int nwords = min(16, (remaining + 3) / 4);
    for (int i = 0; i < nwords; i++) {
        uint k = ks[i] + s[i];
        const int left = remaining - 4 * i;
        if (left < 4)
            k &= (1u << (8 * left)) - 1u; /* the packet ends inside this word: keep its low bytes */
        cipher[base + i] = plain[base + i] ^ k;
    }
}
