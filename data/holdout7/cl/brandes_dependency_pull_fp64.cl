#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Betweenness centrality (Brandes), backward phase, for a batch of sources at once: dimension 0 is the
 * vertex, dimension 1 the source. Each source's sweep is at its own depth (depth[s]); a vertex at that BFS
 * level pulls the dependency of its successors (neighbours one level deeper):
 * delta[v] = sum_w sigma[v] / sigma[w] * (1 + delta[w]). Path counts and dependencies are double. */
__kernel void brandes_dependency_pull_fp64(const int n, const int nsrc,
                                           __global const int *row_ptr,
                                           __global const int *col_idx,
                                           __global const int *depth,
                                           __global const int *level,
                                           __global const double *sigma,
                                           __global double *delta)
{
    const int v = get_global_id(0);
    const int s = get_global_id(1);
    if (v >= n || s >= nsrc)
        return;

    const int d = depth[s];
    __global const int *lev = level + (size_t)s * n;
    if (lev[v] != d)
        return;

    __global const double *sig = sigma + (size_t)s * n;
    __global double *del = delta + (size_t)s * n;
    const double sv = sig[v];
    double acc = 0.0;
    const int end = row_ptr[v + 1];
    for (int e = row_ptr[v]; e < end; e++) {
        const int w = col_idx[e];
        if (lev[w] == d + 1)
            acc += sv / sig[w] * (1.0 + del[w]);
    }
    del[v] = acc;
}
