/* Traffic measurement: a count-min sketch of bytes per flow. Every work-item takes one packet, hashes its flow
 * key (source, destination, sport << 16 | dport, protocol) with MurmurHash3 (x86, 32-bit) once per sketch row,
 * each row with its own seed, and adds the packet's length to the row's counter at the hash modulo the width (a
 * power of two) with an integer atomic. The sketch accumulates across batches (it is read and written). */
#define C1 0xcc9e2d51u
#define C2 0x1b873593u

uint mix_word(uint h, uint k)
{
    k *= C1;
    k = rotate(k, 15u);
    k *= C2;
    h ^= k;
    h = rotate(h, 13u);
    return h * 5u + 0xe6546b64u;
}

uint murmur3_key16(const uint k0, const uint k1, const uint k2, const uint k3, const uint seed)
{
    uint h = seed;
    h = mix_word(h, k0);
    h = mix_word(h, k1);
    h = mix_word(h, k2);
    h = mix_word(h, k3);
    h ^= 16u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__kernel void cms_flow_bytes_atomic(const int npkt, const int depth, const uint width_mask,
                                    __global const uint *flow_key,
                                    __global const int *pkt_len,
                                    __global const uint *row_seed,
                                    __global uint *sketch)
{
    const int i = get_global_id(0);
    if (i >= npkt)
        return;

    const uint k0 = flow_key[4 * i];
    const uint k1 = flow_key[4 * i + 1];
    const uint k2 = flow_key[4 * i + 2];
    const uint k3 = flow_key[4 * i + 3];
    const uint len = (uint)pkt_len[i];
    const size_t width = (size_t)width_mask + 1;

    for (int r = 0; r < depth; r++) {
        const uint h = murmur3_key16(k0, k1, k2, k3, row_seed[r]);
        atomic_add(&sketch[r * width + (h & width_mask)], len);
    }
}
