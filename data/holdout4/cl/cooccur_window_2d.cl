/* Word co-occurrence counts for a GloVe-style embedding model. tokens is a stream of word ids, with -1
 * marking a sentence break; work-item (i, d) looks at the pair of tokens at distance d + 1 and counts it
 * in both orders in a vocab x vocab matrix with atomic_inc. Frequent words make some cells very hot. */
__kernel void cooccur_window_2d(const int ntok,
                                const int vocab,
                                __global const int *tokens,
                                __global uint *counts)
{
    const int i = get_global_id(0);
    const int j = i + (int)get_global_id(1) + 1;
    if (j >= ntok)
        return;

    const int a = tokens[i];
    const int b = tokens[j];
    if (a < 0 || b < 0)
        return;

    /* pairs across a sentence break do not count */
    for (int k = i + 1; k < j; k++)
        if (tokens[k] < 0)
            return;

    atomic_inc(&counts[a * vocab + b]);
    atomic_inc(&counts[b * vocab + a]);
}
