/* y = A x with A in compressed sparse row form: one work-item per row walks that row's entries,
 * row_ptr[r] to row_ptr[r + 1]. The row lengths are data: give the buffers' lengths
 * (--buffer row_ptr=ROWS+1 --buffer col=NNZ) and kgraph takes the mean row length from them. */
__kernel void spmv_csr(const int rows,
                       __global const int *row_ptr,
                       __global const int *col,
                       __global const float *val,
                       __global const float *x,
                       __global float *y)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++)
        sum += val[k] * x[col[k]];
    y[r] = sum;
}
