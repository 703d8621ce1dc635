/* Bitmap-index query over zones of a table: bitmaps holds one bitmap per (column, value) pair, row r
 * in bit r % 32 of word r / 32. Query q asks for the rows with bitmaps query_a[q] AND query_b[q] set
 * that are still live (not deleted). Work-item (zone, q) ANDs the words of its zone of block_words
 * words, counts the matching rows with popcount and finds the first matching row (-1 if none), as
 * the zone map of an index scan needs. */
__kernel void bitmap_crosstab_2d(const int nwords, const int block_words,
                                 __global const uint *bitmaps,
                                 __global const int *query_a,
                                 __global const int *query_b,
                                 __global const uint *live,
                                 __global int *zone_count,
                                 __global int *zone_first)
{
    const int zone = get_global_id(0);
    const int q = get_global_id(1);
    const int nzones = (nwords + block_words - 1) / block_words;
    if (zone >= nzones)
        return;

    __global const uint *a = bitmaps + (size_t)query_a[q] * nwords;
    __global const uint *b = bitmaps + (size_t)query_b[q] * nwords;
    const int w0 = zone * block_words;
    const int w1 = min(w0 + block_words, nwords);

    int count = 0;
    int first = -1;
    for (int w = w0; w < w1; w++) {
        const uint bits = a[w] & b[w] & live[w];
        if (bits == 0u)
            continue;
        if (first < 0)
            first = 32 * w + 31 - (int)clz(bits & (0u - bits));
        count += popcount(bits);
    }
    zone_count[q * nzones + zone] = count;
    zone_first[q * nzones + zone] = first;
}
