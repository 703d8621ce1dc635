/* Scrambles every 32-bit word with `rounds` rounds of Marsaglia's xorshift32
 * followed by a multiplicative (Weyl-style) mix with the element index. */
uint xorshift32(uint s)
{
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

__kernel void xorshift_rounds(const int rounds, __global const uint *seed, __global uint *out)
{
    const uint i = get_global_id(0);
    uint s = seed[i] ^ (i * 0x9E3779B9u);
    if (s == 0u)
        s = 0x6D2B79F5u;
    for (int r = 0; r < rounds; r++) {
        s = xorshift32(s);
        s = s * 0x2C1B3C6Du + (uint)r;
    }
    out[i] = s;
}
