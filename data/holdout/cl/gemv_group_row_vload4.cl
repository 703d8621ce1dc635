/* y = alpha * A x + beta * y, A is m x n row-major with n a multiple of 4.
 * One work-group per row: items read the row four floats at a time (vload4),
 * strided by the work-group size, then reduce in a launch-sized local buffer. */
__kernel void gemv_group_row_vload4(int m, int n, float alpha, float beta,
                                    __global const float *A,
                                    __global const float *x,
                                    __global float *y,
                                    __local float *red)
{
    int row = get_group_id(0);
    int lid = get_local_id(0);
    int nl = get_local_size(0);
    __global const float *arow = A + (size_t)row * n;

    float acc = 0.0f;
    for (int q = lid; q < n / 4; q += nl) {
        float4 a4 = vload4(q, arow);
        float4 x4 = vload4(q, x);
        acc += dot(a4, x4);
    }
    red[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nl / 2; s > 0; s /= 2) {
        if (lid < s)
            red[lid] = red[lid] + red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[row] = alpha * red[0] + beta * y[row];
}
