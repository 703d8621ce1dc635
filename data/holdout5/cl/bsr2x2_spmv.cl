/* y = A x for a sparse matrix in block compressed rows (BSR) with 2x2 blocks, as assembled for a
 * 2-D problem with two unknowns per node (displacements u, v). Block row i holds the blocks
 * block_ptr[i] .. block_ptr[i + 1] - 1; block k couples node i with node block_col[k] and is stored
 * row-major in vals[4k .. 4k + 3]. One work-item per block row; x and y are interleaved (u, v) pairs. */
__kernel void bsr2x2_spmv(const int nblockrows,
                          __global const uint *block_ptr,
                          __global const uint *block_col,
                          __global const float *vals,
                          __global const float *x,
                          __global float *y)
{
    const int i = get_global_id(0);
    if (i >= nblockrows)
        return;

    float y0 = 0.0f, y1 = 0.0f;
    const uint end = block_ptr[i + 1];
    for (uint k = block_ptr[i]; k < end; k++) {
        const float4 blk = vload4(k, vals);
        const float2 xj = vload2(block_col[k], x);
        y0 += blk.s0 * xj.x + blk.s1 * xj.y;
        y1 += blk.s2 * xj.x + blk.s3 * xj.y;
    }
    vstore2((float2)(y0, y1), i, y);
}
