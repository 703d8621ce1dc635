/* Jaccard similarity of the two end points of every edge of an undirected graph, for link prediction:
 * |N(u) & N(v)| / |N(u) | N(v)|. Neighbour lists are sorted (CSR with uint column indices); the
 * intersection is counted by merging the two lists, one edge per work-item. */
__kernel void jaccard_edge_sorted_merge(const int nedges,
                                        __global const uint *row_ptr,
                                        __global const uint *col_idx,
                                        __global const uint *edge_src,
                                        __global float *jaccard)
{
    const int e = get_global_id(0);
    if (e >= nedges)
        return;

    const uint u = edge_src[e];
    const uint v = col_idx[e];
    uint a = row_ptr[u], a_end = row_ptr[u + 1];
    uint b = row_ptr[v], b_end = row_ptr[v + 1];
    const uint du = a_end - a, dv = b_end - b;

    uint common = 0;
    while (a < a_end && b < b_end) {
        const uint x = col_idx[a], y = col_idx[b];
        if (x == y) {
            common++;
            a++;
            b++;
        } else if (x < y) {
            a++;
        } else {
            b++;
        }
    }
    const uint uni = du + dv - common;
    jaccard[e] = uni > 0 ? (float)common / (float)uni : 0.0f;
}
