/* One compare-exchange stage (block size k, distance j) of a bitonic sorting
 * network over key/value pairs. n/2 work-items, one per pair: the pair's lower
 * index is built from the work-item id, and the block's direction from bit k. */
__kernel void bitonic_kv_halfcleaner(const uint k, const uint j,
                                     __global uint *keys, __global uint *vals)
{
    const uint t = get_global_id(0);
    const uint lo = 2 * j * (t / j) + (t % j);
    const uint hi = lo + j;
    const bool ascending = (lo & k) == 0;

    const uint klo = keys[lo];
    const uint khi = keys[hi];
    if ((klo > khi) == ascending && klo != khi) {
        const uint vlo = vals[lo];
        keys[lo] = khi;
        keys[hi] = klo;
        vals[lo] = vals[hi];
        vals[hi] = vlo;
    }
}
