/* Receive-side scaling in software: the Toeplitz hash of each packet's flow fields under a 40-byte secret key
 * (the Microsoft RSS definition), then the receive queue from the redirection table by the hash's low bits.
 * A packet descriptor is ten uint words: flags (bit 0: IPv6, bit 1: TCP or UDP ports present, bit 2: IP
 * fragment), the source address (word 1 for IPv4, words 1..4 for IPv6), the destination address (word 5, or
 * words 5..8), and sport << 16 | dport in word 9. The hash input is the source address, the destination
 * address and, unless the packet has no ports or is a fragment, the port word: 2, 3, 8 or 9 words. The key
 * is ten big-endian words; for every set input bit, most significant first, the 32-bit window of the key that
 * starts at that bit's position is XORed into the hash. */
#define DESC_WORDS 10
#define F_IPV6 1u
#define F_L4 2u
#define F_FRAG 4u

__kernel void toeplitz_rss_reta_v4v6(const int npkt, const uint reta_mask,
                                     __global const uint *desc,
                                     __constant uint *rss_key,
                                     __global const int *reta,
                                     __global uint *rss_hash,
                                     __global int *rx_queue)
{
    const int i = get_global_id(0);
    if (i >= npkt)
        return;

    __global const uint *d = desc + (size_t)i * DESC_WORDS;
    const uint flags = d[0];
    uint in[9];
    int nw;
    if (flags & F_IPV6) {
        for (int k = 0; k < 4; k++) {
            in[k] = d[1 + k];
            in[4 + k] = d[5 + k];
        }
        nw = 8;
    } else {
        in[0] = d[1];
        in[1] = d[5];
        nw = 2;
    }
    if ((flags & F_L4) && !(flags & F_FRAG))
        in[nw++] = d[9];

    uint h = 0u;
    for (int w = 0; w < nw; w++) {
        const ulong window = ((ulong)rss_key[w] << 32) | rss_key[w + 1];
        const uint v = in[w];
        for (int b = 0; b < 32; b++) {
            if (v & (0x80000000u >> b))
                h ^= (uint)(window >> (32 - b));
        }
    }

    rss_hash[i] = h;
    rx_queue[i] = reta[h & reta_mask];
}
