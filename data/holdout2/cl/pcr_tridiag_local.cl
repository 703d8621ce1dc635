/* Batched tridiagonal solves by parallel cyclic reduction, a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i].
 * Systems of n equations (n divides the work-group size) sit side by side in local memory, one
 * equation per work-item; each of the log2(n) steps eliminates the neighbours at distance s
 * within the same system. */
__kernel void pcr_tridiag_local(const int n,
                                __global const float *a, __global const float *b,
                                __global const float *c, __global const float *d,
                                __global float *x,
                                __local float *la, __local float *lb,
                                __local float *lc, __local float *ld)
{
    const int lid = get_local_id(0);
    const int j = lid % n;
    const int g = get_global_id(0);
    la[lid] = a[g];
    lb[lid] = b[g];
    lc[lid] = c[g];
    ld[lid] = d[g];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = 1; s < n; s *= 2) {
        float na = 0.0f, nc = 0.0f;
        float nb = lb[lid], nd = ld[lid];
        if (j - s >= 0) {
            const float alpha = -la[lid] / lb[lid - s];
            na = alpha * la[lid - s];
            nb += alpha * lc[lid - s];
            nd += alpha * ld[lid - s];
        }
        if (j + s < n) {
            const float gamma = -lc[lid] / lb[lid + s];
            nc = gamma * lc[lid + s];
            nb += gamma * la[lid + s];
            nd += gamma * ld[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        la[lid] = na;
        lb[lid] = nb;
        lc[lid] = nc;
        ld[lid] = nd;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    x[g] = ld[lid] / lb[lid];
}
