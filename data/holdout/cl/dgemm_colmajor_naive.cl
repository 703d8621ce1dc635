#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* C = alpha * A * B + beta * C in double precision, BLAS column-major layout
 * (A is m x k with leading dimension m, B is k x n with leading dimension k).
 * Dimension 0 walks down a column of C so neighbouring work-items read
 * neighbouring elements of A. */
#define IDX(row, col, ld) ((row) + (col) * (ld))

__kernel void dgemm_colmajor_naive(const int m, const int n, const int k,
                                   const double alpha, const double beta,
                                   __global const double *A,
                                   __global const double *B,
                                   __global double *C)
{
    const int row = get_global_id(0);
    const int col = get_global_id(1);
    if (row >= m || col >= n)
        return;
    double acc = 0.0;
    for (int p = 0; p < k; ++p)
        acc += A[IDX(row, p, m)] * B[IDX(p, col, k)];
    C[IDX(row, col, m)] = alpha * acc + beta * C[IDX(row, col, m)];
}
