#define blockIdx_x get_group_id(0)
#define blockDim_x get_local_size(0)
#define threadIdx_x get_local_id(0)
#define __syncthreads() barrier(CLK_LOCAL_MEM_FENCE)
#define IDX(i, j, n) ((i) * (n) + (j))
#define SQR(x) ((x) * (x))
__kernel void cuda_macros(__global const float *a, __global float *b, int c)
{
    int d = blockIdx_x * blockDim_x + threadIdx_x;
    int e = d / c, f = d % c;
    if (e >= c) return;
    b[IDX(e, f, c)] = SQR(a[IDX(e, f, c)]) - a[IDX(f, e, c)];
}
