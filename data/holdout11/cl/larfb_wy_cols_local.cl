/* Blocked Householder QR, the trailing-matrix update (LAPACK's larfb, left side, transposed, forward, columnwise):
 * C := Q^T C = C - V T^T V^T C for the m x n column-major block C, where Q = H(1) ... H(k) = I - V T V^T in compact
 * WY form. V is m x k column-major with the reflectors below its diagonal; the unit diagonal is implied and the R
 * stored above it is not read. T is k x k upper triangular, column-major (larft's output). A work-group takes one
 * column of C at a time, looping by the number of groups: the column goes to __local memory, the first k
 * work-items form w = V^T c (one reflector each), then y = T^T w, then every work-item updates its rows,
 * c -= V y, and writes them back. */
__kernel void larfb_wy_cols_local(const int m, const int n, const int k,
                                  __global const float *v,
                                  __global const float *t,
                                  __global float *c,
                                  __local float *ccol,
                                  __local float *w,
                                  __local float *y)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int col = get_group_id(0); col < n; col += get_num_groups(0)) {
        __global float *cc = c + (size_t)col * m;
        for (int r = lid; r < m; r += lsz)
            ccol[r] = cc[r];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int j = lid; j < k; j += lsz) {
            __global const float *vj = v + (size_t)j * m;
            float s = ccol[j];
            for (int r = j + 1; r < m; r++)
                s += vj[r] * ccol[r];
            w[j] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int j = lid; j < k; j += lsz) {
            __global const float *tj = t + (size_t)j * k;
            float s = 0.0f;
            for (int i = 0; i <= j; i++)
                s += tj[i] * w[i];
            y[j] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int r = lid; r < m; r += lsz) {
            float s = ccol[r];
            const int jmax = min(r, k);
            for (int j = 0; j < jmax; j++)
                s -= v[(size_t)j * m + r] * y[j];
            if (r < k)
                s -= y[r];
            cc[r] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
