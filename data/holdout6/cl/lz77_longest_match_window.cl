/* The match finder of an LZ77 compressor (deflate-style parameters), one position per work-item: for
 * position i, the longest earlier occurrence of the bytes starting at i within the last `window` bytes,
 * at most max_len bytes long and not running past the end of the input (a match may overlap position i,
 * as LZ77 allows). Candidates are scanned from the nearest distance outwards; a candidate must beat the
 * best length so far, so ties keep the nearest distance. Like zlib's longest_match, a candidate is rejected
 * early unless it agrees at the byte that would extend the best match, and the scan stops at a match of the
 * greatest possible length. Matches shorter than min_len are reported as literals (length 0, distance 0). */
__kernel void lz77_longest_match_window(const int n,
                                        const int window,
                                        const int max_len,
                                        const int min_len,
                                        __global const uchar *data,
                                        __global int *match_len,
                                        __global int *match_dist)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const int limit = min(max_len, n - i);
    const int farthest = min(window, i);
    const uchar first = data[i];
    int best_len = 0, best_dist = 0;
    for (int d = 1; d <= farthest; d++) {
        const int j = i - d;
        if (data[j] != first || data[j + best_len] != data[i + best_len])
            continue;
        int len = 1;
        while (len < limit && data[j + len] == data[i + len])
            len++;
        if (len > best_len) {
            best_len = len;
            best_dist = d;
            if (len == limit)
                break;
        }
    }

    if (best_len < min_len) {
        best_len = 0;
        best_dist = 0;
    }
    match_len[i] = best_len;
    match_dist[i] = best_dist;
}
