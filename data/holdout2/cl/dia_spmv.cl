/* y = A x with A stored by diagonals (DIA format): diagonal d holds A[i][i + offsets[d]] at
 * data[d * n + i]; entries that would fall outside the matrix are skipped. One row per work-item,
 * a runtime loop over the diagonals. */
__kernel void dia_spmv(const int n, const int ndiag,
                       __global const int *offsets,
                       __global const float *data,
                       __global const float *x,
                       __global float *y)
{
    const int row = get_global_id(0);
    if (row >= n)
        return;

    float sum = 0.0f;
    for (int d = 0; d < ndiag; d++) {
        const int col = row + offsets[d];
        if (col >= 0 && col < n)
            sum += data[d * n + row] * x[col];
    }
    y[row] = sum;
}
