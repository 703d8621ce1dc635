#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Estimates how well each block of a byte stream would compress under an LZMA-style adaptive binary range
 * coder, before deciding whether to compress it or store it raw (one block per work-item). Every byte is coded
 * MSB first through a bit tree of 255 adaptive probabilities (11-bit, start at one half, updated by 1/32 of
 * the error after each bit), with two trees chosen by the previous byte's top bit (ASCII-like or not), as
 * LZMA's literal coder does with lc = 1. The ideal code length of a bit is -log2 of the probability the model
 * gave it; the block's cost in bits is their sum, accumulated in double. */
#define PROB_BITS 11
#define PROB_ONE (1 << PROB_BITS)
#define MOVE_BITS 5

__kernel void rc_bittree_cost_fp64(const int nblocks,
                                   const int block_len,
                                   __global const uchar *data,
                                   __global double *cost_bits)
{
    const int blk = get_global_id(0);
    if (blk >= nblocks)
        return;

    ushort prob[2 * 256];
    for (int k = 0; k < 2 * 256; k++)
        prob[k] = PROB_ONE / 2;

    __global const uchar *src = data + (size_t)blk * block_len;
    double cost = 0.0;
    uint prev = 0;
    for (int pos = 0; pos < block_len; pos++) {
        const uint c = src[pos];
        const int tree = (prev >> 7) * 256;
        uint node = 1;
        for (int bit = 7; bit >= 0; bit--) {
            const uint b = (c >> bit) & 1u;
            const int p0 = prob[tree + node]; /* probability of a 0 bit, in 1/2048 */
            if (b == 0) {
                cost -= log2((double)p0 / PROB_ONE);
                prob[tree + node] = (ushort)(p0 + ((PROB_ONE - p0) >> MOVE_BITS));
            } else {
                cost -= log2((double)(PROB_ONE - p0) / PROB_ONE);
                prob[tree + node] = (ushort)(p0 - (p0 >> MOVE_BITS));
            }
            node = (node << 1) | b;
        }
        prev = c;
    }
    cost_bits[blk] = cost;
}
