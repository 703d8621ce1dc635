/* Step k of right-looking LU without pivoting: the trailing submatrix gets the
 * rank-1 update A[i][j] -= (A[i][k] / A[k][k]) * A[k][j] for i, j > k.
 * Row k and column k are only read, so no work-item races another.
 * The NDRange covers the whole matrix; items outside the trailing block leave. */
__kernel void lu_rank1_update(int n, int k, __global float *a)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i <= k || j <= k || i >= n || j >= n)
        return;
    float pivot = a[k * n + k];
    float l = a[i * n + k] / pivot;
    a[i * n + j] = a[i * n + j] - l * a[k * n + j];
}
