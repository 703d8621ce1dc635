/* Integer-pel motion estimation of 16x16 macroblocks, full search over +/- range around the co-located block, as
 * an encoder's first ME pass. A work-group takes one macroblock at a time (looping by the number of groups): the
 * current block and the reference window ((16 + 2 range)^2 samples, coordinates clamped to the picture as in a
 * padded reference frame) go to __local memory; each work-item scores a strided share of the (2 range + 1)^2
 * candidates, cost = SAD + lambda * (bits of the motion vector difference to the predictor pmv), the MVD in
 * quarter-pel units coded as signed Exp-Golomb; a candidate's SAD stops early once it cannot win. The winner
 * has the lowest cost, ties going to the shorter vector (|dx| + |dy|), then to the first candidate in raster
 * order: the three are packed in a ulong key and the work-group takes the minimum by a __local tree.
 * pmv and mv_out pack (dx, dy) as two int16 halves of a uint (dx low); cost_out is the winner's cost. */

static inline uint se_bits(int v)
{
    const uint code = v > 0 ? 2u * (uint)v - 1u : 2u * (uint)(-v);
    return 2u * (31u - clz(code + 1u)) + 1u;
}

__kernel void me16_sad_window_local(const int width, const int height, const int mb_cols, const int nmb,
                                    const int range, const int lambda,
                                    __global const uchar *cur,
                                    __global const uchar *ref,
                                    __global const uint *pmv,
                                    __global uint *mv_out,
                                    __global uint *cost_out,
                                    __local uchar *blk,
                                    __local uchar *win,
                                    __local ulong *red)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int span = 2 * range + 1;
    const int wdim = 16 + 2 * range;
    const int ncand = span * span;

    for (int mb = get_group_id(0); mb < nmb; mb += get_num_groups(0)) {
        const int mbx = (mb % mb_cols) << 4;
        const int mby = (mb / mb_cols) << 4;
        for (int t = lid; t < 256; t += lsz)
            blk[t] = cur[(size_t)(mby + (t >> 4)) * width + mbx + (t & 15)];
        for (int t = lid; t < wdim * wdim; t += lsz) {
            const int wy = t / wdim, wx = t - wy * wdim;
            const int y = clamp(mby - range + wy, 0, height - 1);
            const int x = clamp(mbx - range + wx, 0, width - 1);
            win[t] = ref[(size_t)y * width + x];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const uint p = pmv[mb];
        const int pmx = (short)(p & 0xffffu);
        const int pmy = (short)(p >> 16);
        ulong best = 0xffffffffffffffffUL;
        for (int c = lid; c < ncand; c += lsz) {
            const int cy = c / span, cx = c - cy * span;
            const int dx = cx - range, dy = cy - range;
            const uint mvcost = (uint)lambda * (se_bits(4 * (dx - pmx)) + se_bits(4 * (dy - pmy)));
            const uint bound = (uint)(best >> 32);
            uint cost = mvcost;
            for (int r = 0; r < 16 && cost <= bound; r++) {
                __local const uchar *w = win + (cy + r) * wdim + cx;
                __local const uchar *s = blk + (r << 4);
                uint sad = 0;
                for (int k = 0; k < 16; k++)
                    sad += abs_diff(s[k], w[k]);
                cost += sad;
            }
            if (cost > bound)
                continue;
            const ulong key = ((ulong)cost << 32) | ((ulong)(abs(dx) + abs(dy)) << 16) | (ulong)c;
            best = min(best, key);
        }
        red[lid] = best;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz >> 1; s > 0; s >>= 1) {
            if (lid < s)
                red[lid] = min(red[lid], red[lid + s]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            const ulong key = red[0];
            const int c = (int)(key & 0xffffUL);
            const int dy = c / span - range, dx = c % span - range;
            mv_out[mb] = ((uint)(dy & 0xffff) << 16) | (uint)(dx & 0xffff);
            cost_out[mb] = (uint)(key >> 32);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
