/* Decode-step attention over a paged KV cache (vLLM-style), grouped-query heads, 2-D NDRange (query head,
 * sequence). The cache is a pool of blocks, key_cache and value_cache [block][kv head][slot][HEAD_DIM];
 * sequence s owns the blocks block_table[s * max_blocks + b] in order and its first context_len[s]
 * slots hold its keys and values. Query head h reads kv head h / (nhead / nkvhead). A work-item walks
 * its sequence's keys once with an online softmax: a score above the running maximum rescales the
 * running sum and the output accumulator, then exp(score - max) weights the value row. out = acc / sum. */
#define HEAD_DIM 64

__kernel void paged_gqa_decode_online(const int nseq, const int nhead, const int nkvhead,
                                      const int block_size, const int max_blocks, const float scale,
                                      __global const float *query,
                                      __global const float *key_cache,
                                      __global const float *value_cache,
                                      __global const int *block_table,
                                      __global const int *context_len,
                                      __global float *out)
{
    const int h = get_global_id(0);
    const int s = get_global_id(1);
    if (h >= nhead || s >= nseq)
        return;

    const int kvh = h / (nhead / nkvhead);
    const int len = context_len[s];
    __global const float *qp = query + ((size_t)s * nhead + h) * HEAD_DIM;
    float q[HEAD_DIM], acc[HEAD_DIM];
    for (int d = 0; d < HEAD_DIM; d++) {
        q[d] = qp[d] * scale;
        acc[d] = 0.0f;
    }

    float m = -INFINITY;
    float l = 0.0f;
    const int nblk = (len + block_size - 1) / block_size;
    for (int b = 0; b < nblk; b++) {
        const int blk = block_table[s * max_blocks + b];
        const int ntok = min(block_size, len - b * block_size);
        for (int t = 0; t < ntok; t++) {
            const size_t off = (((size_t)blk * nkvhead + kvh) * block_size + t) * HEAD_DIM;
            float sc = 0.0f;
            for (int d = 0; d < HEAD_DIM; d++)
                sc += q[d] * key_cache[off + d];
            if (sc > m) {
                const float corr = exp(m - sc);
                l *= corr;
                for (int d = 0; d < HEAD_DIM; d++)
                    acc[d] *= corr;
                m = sc;
            }
            const float p = exp(sc - m);
            l += p;
            for (int d = 0; d < HEAD_DIM; d++)
                acc[d] += p * value_cache[off + d];
        }
    }

    __global float *op = out + ((size_t)s * nhead + h) * HEAD_DIM;
    const float inv = len > 0 ? 1.0f / l : 0.0f;
    for (int d = 0; d < HEAD_DIM; d++)
        op[d] = acc[d] * inv;
}
