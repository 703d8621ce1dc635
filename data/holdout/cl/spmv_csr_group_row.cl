/* y = A x with A in CSR. One work-group per row: the work-items stride over the
 * row's nonzeros, then a tree reduction in a local buffer whose size is given at
 * launch (one float per work-item). */
__kernel void spmv_csr_group_row(const int nrows,
                                 __global const int *rowptr,
                                 __global const int *colidx,
                                 __global const float *vals,
                                 __global const float *x,
                                 __global float *y,
                                 __local float *scratch)
{
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    if (row >= nrows)
        return;

    const int start = rowptr[row];
    const int stop = rowptr[row + 1];
    float partial = 0.0f;
    for (int p = start + lid; p < stop; p += lsize)
        partial += vals[p] * x[colidx[p]];
    scratch[lid] = partial;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int stride = lsize >> 1; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = scratch[0];
}
