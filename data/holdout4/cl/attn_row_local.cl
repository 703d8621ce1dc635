/* Scaled dot-product attention, one query row per work-group at a time (the groups stride over the
 * rows). The group copies its query into local memory, scores it against every key into a __local
 * array, turns the scores into a softmax (maximum and sum reduced through a __local tree) and writes
 * the probability-weighted sum of the value rows. Keys and values are row-major [nkeys][dim]; dim is
 * at most 128. */
#define MAX_DIM 128
#define MAX_WG 256

__kernel void attn_row_local(const int nrows, const int nkeys, const int dim, const float scale,
                             __global const float *q, __global const float *k,
                             __global const float *v, __global float *out,
                             __local float *scores)
{
    __local float qrow[MAX_DIM];
    __local float red[MAX_WG];
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int row = get_group_id(0); row < nrows; row += get_num_groups(0)) {
        for (int d = lid; d < dim; d += lsz)
            qrow[d] = q[(size_t)row * dim + d];
        barrier(CLK_LOCAL_MEM_FENCE);

        float m = -INFINITY;
        for (int j = lid; j < nkeys; j += lsz) {
            __global const float *kj = k + (size_t)j * dim;
            float s = 0.0f;
            for (int d = 0; d < dim; d++)
                s += qrow[d] * kj[d];
            s *= scale;
            scores[j] = s;
            m = fmax(m, s);
        }
        red[lid] = m;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = lsz / 2; stride > 0; stride >>= 1) {
            if (lid < stride)
                red[lid] = fmax(red[lid], red[lid + stride]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const float row_max = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);

        float sum = 0.0f;
        for (int j = lid; j < nkeys; j += lsz) {
            const float e = exp(scores[j] - row_max);
            scores[j] = e;
            sum += e;
        }
        red[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = lsz / 2; stride > 0; stride >>= 1) {
            if (lid < stride)
                red[lid] += red[lid + stride];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const float inv_sum = 1.0f / red[0];

        for (int d = lid; d < dim; d += lsz) {
            float acc = 0.0f;
            for (int j = 0; j < nkeys; j++)
                acc += scores[j] * v[(size_t)j * dim + d];
            out[(size_t)row * dim + d] = acc * inv_sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
