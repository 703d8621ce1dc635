/* Gated RMSNorm of Mamba-2 blocks: for each token row, g = x * silu(z), then
 * y = g / sqrt(mean(g^2) + eps) * weight. A work-group handles a row at a time (rows group_id,
 * group_id + num_groups, ...): every work-item sums the squares of its strided share of the row, the
 * group adds the shares up in __local memory, and a second pass recomputes g and writes y. The
 * reciprocal RMS of each row is kept for the backward pass. The work-group size is a power of two. */
__kernel void rmsnorm_gate_silu_rows(const int nrows,
                                     const int hidden,
                                     const float eps,
                                     __global const float *x,
                                     __global const float *z,
                                     __global const float *weight,
                                     __global float *y,
                                     __global float *rstd,
                                     __local float *partial)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int r = get_group_id(0); r < nrows; r += get_num_groups(0)) {
        __global const float *xr = x + (size_t)r * hidden;
        __global const float *zr = z + (size_t)r * hidden;

        float ss = 0.0f;
        for (int c = lid; c < hidden; c += lsz) {
            const float zv = zr[c];
            const float g = xr[c] * zv / (1.0f + exp(-zv));
            ss += g * g;
        }
        partial[lid] = ss;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const float inv = rsqrt(partial[0] / hidden + eps);
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read partial[0] before the next row reuses it */

        __global float *yr = y + (size_t)r * hidden;
        for (int c = lid; c < hidden; c += lsz) {
            const float zv = zr[c];
            const float g = xr[c] * zv / (1.0f + exp(-zv));
            yr[c] = g * inv * weight[c];
        }
        if (lid == 0)
            rstd[r] = inv;
    }
}
