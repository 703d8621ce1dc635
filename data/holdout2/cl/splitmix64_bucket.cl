/* Hash 64-bit keys with the splitmix64 finaliser (seeded) and place each in one of nbuckets
 * buckets by a 64-bit modulo (nbuckets need not be a power of two). */
__kernel void splitmix64_bucket(const int n, const ulong seed, const uint nbuckets,
                                __global const ulong *keys,
                                __global ulong *hashes,
                                __global uint *bucket)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    ulong z = keys[i] + seed + 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z = z ^ (z >> 31);
    hashes[i] = z;
    bucket[i] = (uint)(z % (ulong)nbuckets);
}
