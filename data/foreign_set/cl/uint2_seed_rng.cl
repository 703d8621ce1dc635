uint rotl(uint x, uint r) { return (x << r) | (x >> (32u - r)); }
__kernel void uint2_seed_rng(__global float *a, uint2 b, int c)
{
    int i = get_global_id(0);
    if (i >= c) return;
    uint s0 = b.x ^ (uint)i, s1 = b.y + (uint)i * 0x9E3779B9u;
    for (int k = 0; k < 4; k++) {
        s1 ^= s0;
        s0 = rotl(s0, 26u) ^ s1 ^ (s1 << 9);
        s1 = rotl(s1, 13u);
    }
    a[i] = (float)(s0 + s1) * 2.3283064e-10f;
}
