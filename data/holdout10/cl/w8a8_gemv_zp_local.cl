/* W8A8 linear layer for one token (GEMV) with integer dot products, as the decode step of a quantized
 * LLM runs it. Weights are asymmetric uint8 (per output row a float scale and an integer zero point),
 * activations symmetric int8 with one per-tensor scale; both come packed four bytes to a uint, little
 * endian, a row of W being kw = K / 4 words. A work-group per output row (the groups loop over the rows
 * by get_num_groups): each work-item strides over the row's words, unpacks the bytes, sign-extends the
 * activations and accumulates (w - zero) * x in an int; the work-group sums the partial dots in a
 * __local tree, and item 0 writes y = w_scale[row] * x_scale * dot + bias[row]. */
__kernel void w8a8_gemv_zp_local(const int nrow, const int kw, const float x_scale,
                                 __global const uint *w_q,
                                 __global const float *w_scale,
                                 __global const int *w_zero,
                                 __global const uint *x_q,
                                 __global const float *bias,
                                 __global float *y,
                                 __local int *part)
{
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);

    for (int row = get_group_id(0); row < nrow; row += get_num_groups(0)) {
        const int zp = w_zero[row];
        __global const uint *wrow = w_q + (size_t)row * kw;
        int acc = 0;
        for (int j = lid; j < kw; j += lsize) {
            const uint w = wrow[j];
            const uint x = x_q[j];
            acc += ((int)(w & 0xffu) - zp) * (int)(char)(x & 0xffu);
            acc += ((int)((w >> 8) & 0xffu) - zp) * (int)(char)((x >> 8) & 0xffu);
            acc += ((int)((w >> 16) & 0xffu) - zp) * (int)(char)((x >> 16) & 0xffu);
            acc += ((int)(w >> 24) - zp) * (int)(char)(x >> 24);
        }
        part[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsize / 2; s > 0; s >>= 1) {
            if (lid < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            y[row] = w_scale[row] * x_scale * (float)part[0] + bias[row];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
