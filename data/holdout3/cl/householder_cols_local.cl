/* Applies the Householder reflector H = I - tau v v^T from the left to an m x n matrix A stored
 * column-major with leading dimension lda (lda >= m): A(:, j) -= tau * v * (v^T A(:, j)).
 * One work-group per column: the dot product v^T A(:, j) is a strided partial sum per work-item
 * and a tree in local memory, then every work-item updates its rows. */
#define WG 128

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void householder_cols_local(const int m, const int lda, const float tau, __global const float *v,
                            __global float *a)
{
    __local float part[WG];
    int j = get_group_id(0);
    int lid = get_local_id(0);
    __global float *col = a + (size_t)j * lda;

    float s = 0.0f;
    for (int i = lid; i < m; i += WG)
        s += v[i] * col[i];
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h >>= 1) {
        if (lid < h)
            part[lid] += part[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float w = tau * part[0];

    for (int i = lid; i < m; i += WG)
        col[i] -= w * v[i];
}
