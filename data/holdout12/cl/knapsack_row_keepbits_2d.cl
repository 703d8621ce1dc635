/* 0/1 knapsack by dynamic programming for a batch of independent instances (the pricing subproblems of a column
 * generation, one per stock type, each with its own dual values as profits). The host loops over the items; this
 * launch adds item k to every instance: prev holds best[c] for capacities 0 .. cap using items 0 .. k - 1 (one
 * row of cap + 1 ints per instance), next receives the row with item k, whose weight and profit for instance b
 * are wt[b] and val[b]. A work-item takes a 32-capacity word of one instance (2-D NDRange: dim 0 the word, dim 1
 * the instance) and also records, one bit per capacity, whether taking the item was strictly better: the word
 * goes to the item's row of the keep table, which the backtracking pass reads to rebuild the packing. */
__kernel void knapsack_row_keepbits_2d(const int nbatch, const int cap, const int nwords,
                                       __global const int *wt,
                                       __global const int *val,
                                       __global const int *prev,
                                       __global int *next,
                                       __global uint *keep)
{
    const int w = get_global_id(0);
    const int b = get_global_id(1);
    if (w >= nwords || b >= nbatch)
        return;

    const int weight = wt[b];
    const int profit = val[b];
    const size_t row = (size_t)b * (cap + 1);
    __global const int *p = prev + row;
    __global int *q = next + row;

    const int c0 = w * 32;
    const int c1 = min(c0 + 32, cap + 1);
    uint bits = 0u;
    for (int c = c0; c < c1; c++) {
        int best = p[c];
        if (c >= weight) {
            const int take = p[c - weight] + profit;
            if (take > best) {
                best = take;
                bits |= 1u << (c - c0);
            }
        }
        q[c] = best;
    }
    keep[(size_t)b * nwords + w] = bits;
}
