/* Triangle counting on a CSR graph whose adjacency lists are sorted: the work-item of vertex u takes
 * each neighbour v in turn and counts the vertices adjacent to both by merging the two sorted lists.
 * Per-vertex counts go to tri[]; the grand total is gathered with one atomic_add per vertex. */
__kernel void triangle_count_merge(const int nverts,
                                   __global const int *row_ptr,
                                   __global const int *col_idx,
                                   __global uint *tri,
                                   __global uint *total)
{
    const int u = get_global_id(0);
    if (u >= nverts)
        return;

    const int ubeg = row_ptr[u];
    const int uend = row_ptr[u + 1];
    uint count = 0;
    for (int k = ubeg; k < uend; k++) {
        const int v = col_idx[k];
        int i = ubeg;
        int j = row_ptr[v];
        const int vend = row_ptr[v + 1];
        while (i < uend && j < vend) {
            const int a = col_idx[i];
            const int b = col_idx[j];
            if (a == b) {
                count++;
                i++;
                j++;
            } else if (a < b) {
                i++;
            } else {
                j++;
            }
        }
    }
    tri[u] = count;
    if (count > 0)
        atomic_add(total, count);
}
