/* Second-order (node2vec) random walks, one walker per work-item. From the current vertex a neighbour is
 * proposed uniformly and accepted with a probability that depends on its relation to the previous vertex
 * (return: 1/p, neighbour of the previous vertex: 1, further away: 1/q, normalised by the largest); the
 * thresholds are given as 24-bit integers. Membership in the previous vertex's sorted neighbour list is a
 * binary search. After max_tries rejected proposals the last one is taken. The random numbers come from a
 * per-walker integer hash chain, so walks are reproducible. */
static uint mix32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static int has_edge(__global const int *row_ptr, __global const int *col_idx, int u, int x)
{
    int lo = row_ptr[u], hi = row_ptr[u + 1] - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) >> 1;
        const int c = col_idx[mid];
        if (c == x)
            return 1;
        if (c < x)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

__kernel void node2vec_walk_reject(const int nwalkers, const int walk_len, const uint seed,
                                   const int max_tries, const int thr_return, const int thr_same,
                                   const int thr_out,
                                   __global const int *row_ptr,
                                   __global const int *col_idx,
                                   __global const int *start,
                                   __global int *walks)
{
    const int w = get_global_id(0);
    if (w >= nwalkers)
        return;

    uint state = mix32(seed ^ (uint)w);
    int cur = start[w], prev = -1;
    walks[w * walk_len] = cur;
    for (int step = 1; step < walk_len; step++) {
        const int begin = row_ptr[cur];
        const int deg = row_ptr[cur + 1] - begin;
        int next = cur;
        if (deg > 0) {
            for (int t = 0; t < max_tries; t++) {
                state = mix32(state + 0x9e3779b9U);
                next = col_idx[begin + (int)(state % (uint)deg)];
                if (prev < 0)
                    break;
                int thr;
                if (next == prev)
                    thr = thr_return;
                else if (has_edge(row_ptr, col_idx, prev, next))
                    thr = thr_same;
                else
                    thr = thr_out;
                state = mix32(state + 0x9e3779b9U);
                if ((int)(state >> 8) < thr)
                    break;
            }
        }
        walks[w * walk_len + step] = next;
        prev = cur;
        cur = next;
    }
}
