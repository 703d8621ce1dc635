/* One peeling round of a k-core decomposition. Every live vertex whose degree (in the graph of live
 * vertices, as of the start of the round) is below k is removed, and each of its live neighbours loses one
 * from its degree. The degrees read for the decision and the degrees decremented are separate buffers, so
 * the result does not depend on the order in which work-items run; the decrements are integer atomics. */
__kernel void kcore_peel_round_atomic(const int n, const int k,
                                      __global const int *row_ptr,
                                      __global const int *col_idx,
                                      __global const int *alive_in,
                                      __global const int *degree_in,
                                      __global int *alive_out,
                                      __global int *degree_out,
                                      __global int *removed_count)
{
    const int v = get_global_id(0);
    if (v >= n)
        return;

    if (!alive_in[v]) {
        alive_out[v] = 0;
        return;
    }
    if (degree_in[v] >= k) {
        alive_out[v] = 1;
        return;
    }
    alive_out[v] = 0;
    atomic_inc(removed_count);
    const int end = row_ptr[v + 1];
    for (int e = row_ptr[v]; e < end; e++) {
        const int u = col_idx[e];
        if (alive_in[u])
            atomic_dec(&degree_out[u]);
    }
}
