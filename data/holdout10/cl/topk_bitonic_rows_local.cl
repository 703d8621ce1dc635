/* Top-k of each row of a logits matrix (the sampler's top-k filter), a work-group per row (the groups loop
 * over the rows by get_num_groups). The group keeps a buffer of 2 * local size (value, column) pairs in
 * __local memory and sorts it with a bitonic network, one compare-exchange per work-item and step, in
 * descending order of value (ties: smaller column first). The first round fills the whole buffer from the
 * row; every later round keeps the best k in front and refills the rest from the next columns, padding
 * the row's end with -inf. A round whose new values all fall below the current k-th best leaves the
 * buffer unsorted (those values cannot enter the top k). The best k come out sorted. */
__kernel void topk_bitonic_rows_local(const int nrow, const int ncol, const int k,
                                      __global const float *logits,
                                      __global float *top_val,
                                      __global int *top_idx,
                                      __local float *sval,
                                      __local int *sidx)
{
    __local int better;
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int n2 = 2 * lsize;

    for (int row = get_group_id(0); row < nrow; row += get_num_groups(0)) {
        __global const float *x = logits + (size_t)row * ncol;
        int c0 = 0;
        while (c0 < ncol) {
            const int keep = c0 > 0 ? k : 0;
            const float thr = c0 > 0 ? sval[k - 1] : -INFINITY;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0)
                better = c0 == 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = keep + lid; i < n2; i += lsize) {
                const int col = c0 + i - keep;
                if (col < ncol) {
                    const float v = x[col];
                    sval[i] = v;
                    sidx[i] = col;
                    if (v > thr)
                        better = 1;
                } else {
                    sval[i] = -INFINITY;
                    sidx[i] = INT_MAX;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (better) {
                for (int size = 2; size <= n2; size <<= 1) {
                    for (int stride = size >> 1; stride > 0; stride >>= 1) {
                        const int i = 2 * lid - (lid & (stride - 1));
                        const int j = i + stride;
                        const float vi = sval[i], vj = sval[j];
                        const int ii = sidx[i], ij = sidx[j];
                        const bool j_first = vj > vi || (vj == vi && ij < ii);
                        const bool desc = (i & size) == 0;
                        if (j_first == desc) {
                            sval[i] = vj;
                            sval[j] = vi;
                            sidx[i] = ij;
                            sidx[j] = ii;
                        }
                        barrier(CLK_LOCAL_MEM_FENCE);
                    }
                }
            }
            c0 += n2 - keep;
        }
        for (int i = lid; i < k; i += lsize) {
            top_val[(size_t)row * k + i] = sval[i];
            top_idx[(size_t)row * k + i] = sidx[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
