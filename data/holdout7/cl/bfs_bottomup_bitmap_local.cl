/* One bottom-up ("pull") level of a direction-optimising breadth-first search over an undirected CSR graph.
 * The frontier and the visited set are bitmaps of 32-bit words. Every unvisited vertex scans its neighbours
 * and stops at the first one that is in the frontier, which becomes its parent. The new-frontier bits of a
 * work-group are collected in __local memory and packed into whole words by the first lsize/32 items, so no
 * atomics are needed (the work-group size is a multiple of 32). */
__kernel void bfs_bottomup_bitmap_local(const int n,
                                        __global const uint *frontier,
                                        __global const uint *visited,
                                        __global const int *row_ptr,
                                        __global const int *col_idx,
                                        __global int *parent,
                                        __global uint *next_frontier,
                                        __local uint *found)
{
    const int v = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    uint hit = 0;

    if (v < n && !((visited[v >> 5] >> (v & 31)) & 1u)) {
        const int end = row_ptr[v + 1];
        for (int e = row_ptr[v]; e < end; e++) {
            const int u = col_idx[e];
            if ((frontier[u >> 5] >> (u & 31)) & 1u) {
                parent[v] = u;
                hit = 1;
                break;
            }
        }
    }
    found[lid] = hit;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid < lsize / 32) {
        const int word = (get_group_id(0) * lsize) / 32 + lid;
        if (word < (n + 31) / 32) {
            uint bits = 0;
            for (int b = 0; b < 32; b++)
                bits |= found[lid * 32 + b] << b;
            next_frontier[word] = bits;
        }
    }
}
