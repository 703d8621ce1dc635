/* Hamming distance between one query bit-string and every row of a database of bit-strings
 * (nwords 64-bit words per row), by popcount of the XOR. One row per work-item. */
__kernel void hamming_popcount_ulong(const int nrows, const int nwords,
                                     __global const ulong *query,
                                     __global const ulong *db,
                                     __global uint *dist)
{
    const int i = get_global_id(0);
    if (i >= nrows)
        return;

    uint total = 0;
    for (int w = 0; w < nwords; w++)
        total += (uint)popcount(db[(size_t)i * nwords + w] ^ query[w]);
    dist[i] = total;
}
