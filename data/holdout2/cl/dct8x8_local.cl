/* Forward 8x8 DCT-II (orthonormal, as in JPEG) of a float image, one 8x8 work-group per block:
 * the block and the cosine basis are staged in local memory, the rows are transformed into a
 * second tile, then the columns. */
#define N 8

__kernel __attribute__((reqd_work_group_size(N, N, 1)))
void dct8x8_local(const int width, const int height,
                  __global const float *src,
                  __global float *dst)
{
    __local float block[N][N];
    __local float rows[N][N];
    __local float basis[N][N];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);

    const float norm = (ly == 0) ? 0.35355339f : 0.5f;
    basis[ly][lx] = norm * cos((float)((2 * lx + 1) * ly) * (M_PI_F / 16.0f));
    block[ly][lx] = src[gy * width + gx];
    barrier(CLK_LOCAL_MEM_FENCE);

    float acc = 0.0f;
    for (int k = 0; k < N; k++)
        acc += basis[lx][k] * block[ly][k];
    rows[ly][lx] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);

    acc = 0.0f;
    for (int k = 0; k < N; k++)
        acc += basis[ly][k] * rows[k][lx];
    dst[gy * width + gx] = acc;
}
