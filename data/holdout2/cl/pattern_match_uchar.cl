/* Naive substring search: work-item i reports whether the pattern occurs at text position i,
 * comparing byte by byte and stopping at the first mismatch (a data-dependent loop). Matches are
 * also counted with one global atomic_inc. */
__kernel void pattern_match_uchar(const int text_len, const int pat_len,
                                  __global const uchar *text,
                                  __global const uchar *pattern,
                                  __global uchar *hit,
                                  __global uint *count)
{
    const int i = get_global_id(0);
    if (i >= text_len)
        return;

    int k = 0;
    if (i + pat_len <= text_len) {
        while (k < pat_len && text[i + k] == pattern[k])
            k++;
    }
    const int found = (k == pat_len) && (i + pat_len <= text_len);
    hit[i] = (uchar)found;
    if (found)
        atomic_inc(count);
}
