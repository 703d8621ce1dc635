#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Sparse matrix-vector product y = A x with A stored in SELL-C-sigma format: the rows were sorted by
 * length inside windows of sigma rows, then cut into slices of C rows; a slice is stored column by
 * column (entry j of all its C rows next to each other) and padded to its longest row with zero values.
 * One work-item per sorted row; perm gives the row's original index for the store. */
__kernel void sell_c_sigma_spmv(const int nrows,
                                const int C,
                                __global const int *slice_ptr,
                                __global const int *col_idx,
                                __global const double *vals,
                                __global const int *perm,
                                __global const double *x,
                                __global double *y)
{
    const int r = get_global_id(0);
    if (r >= nrows)
        return;

    const int slice = r / C;
    const int lane = r % C;
    const int start = slice_ptr[slice];
    const int width = (slice_ptr[slice + 1] - start) / C;

    double sum = 0.0;
    int k = start + lane;
    for (int j = 0; j < width; j++) {
        sum += vals[k] * x[col_idx[k]];
        k += C;
    }
    y[perm[r]] = sum;
}
