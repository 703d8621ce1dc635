// Dense matrix-vector product y = A x, one row per work-item, double precision.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void matvec(const int rows, const int cols,
                     __global const double *restrict A,
                     __global const double *restrict x,
                     __global double *restrict y)
{
    const int r = get_global_id(0);
    if (r < rows) {
        double acc = 0.0;
        for (int c = 0; c < cols; ++c) {
            acc = fma(A[r * cols + c], x[c], acc);
        }
        y[r] = acc;
    }
}
