/* H.264 luma residual coding of one 4x4 block per work-item: the residual orig - pred, the integer core transform
 * (rows, then columns: the 1, 1, 1, 1 / 2, 1, -1, -2 / 1, -1, -1, 1 / 1, -2, 2, -1 butterflies), scalar quantisation
 * by the multiplication factors of qp % 6 and position class with qbits = 15 + qp / 6 and a dead zone of 1/3
 * (intra macroblocks) or 1/6 (inter), then the frame zig-zag scan. An inter block whose levels are all +/-1 and
 * sparse is dropped (x264-style decimation: each nonzero level costs ds_table[zero run before it]; a total below
 * dec_thresh zeroes the block). Out: the 16 levels in scan order, the end-of-block position (last nonzero scan
 * index + 1, 0 for an empty block) and the number of nonzero levels. Blocks are numbered in raster order over
 * the picture (width / 4 per row); qp and the intra flag are per 16x16 macroblock. */

__constant int mf_table[6][3] = {  /* (even, even), mixed, (odd, odd) positions */
    {13107, 8066, 5243}, {11916, 7490, 4660}, {10082, 6554, 4194},
    {9362, 5825, 3647}, {8192, 5243, 3355}, {7282, 4559, 2893}
};

__constant uchar zigzag4x4[16] = {0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15};

__constant uchar ds_table[16] = {3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

__kernel void avc_core4x4_quant_zigzag(const int width, const int nblk, const int dec_thresh,
                                       __global const uchar *orig,
                                       __global const uchar *pred,
                                       __global const uchar *mb_qp,
                                       __global const uchar *mb_intra,
                                       __global short *levels,
                                       __global int *eob,
                                       __global int *nnz)
{
    const int b = get_global_id(0);
    if (b >= nblk)
        return;
    const int bw = width >> 2;
    const int bx = b % bw, by = b / bw;
    const size_t base = (size_t)(by << 2) * width + (bx << 2);

    int d[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            d[r * 4 + c] = (int)orig[base + (size_t)r * width + c] - (int)pred[base + (size_t)r * width + c];

    for (int r = 0; r < 4; r++) {
        int *x = d + r * 4;
        const int s03 = x[0] + x[3], d03 = x[0] - x[3];
        const int s12 = x[1] + x[2], d12 = x[1] - x[2];
        x[0] = s03 + s12;
        x[1] = 2 * d03 + d12;
        x[2] = s03 - s12;
        x[3] = d03 - 2 * d12;
    }
    for (int c = 0; c < 4; c++) {
        const int s03 = d[c] + d[12 + c], d03 = d[c] - d[12 + c];
        const int s12 = d[4 + c] + d[8 + c], d12 = d[4 + c] - d[8 + c];
        d[c] = s03 + s12;
        d[4 + c] = 2 * d03 + d12;
        d[8 + c] = s03 - s12;
        d[12 + c] = d03 - 2 * d12;
    }

    const int mb = (by >> 2) * (bw >> 2) + (bx >> 2);
    const int qp = mb_qp[mb];
    const int intra = mb_intra[mb];
    const int qbits = 15 + qp / 6;
    const int rem = qp % 6;
    const int f = (1 << qbits) / (intra ? 3 : 6);

    int lev[16];
    int last = 0, count = 0, big = 0;
    for (int k = 0; k < 16; k++) {
        const int pos = zigzag4x4[k];
        const int w = d[pos];
        const int l = ((w < 0 ? -w : w) * mf_table[rem][(pos & 1) + ((pos >> 2) & 1)] + f) >> qbits;
        lev[k] = w < 0 ? -l : l;
        if (l) {
            count++;
            last = k + 1;
            big |= l > 1;
        }
    }

    if (!intra && count && !big) {
        int score = 0, run = 0;
        for (int k = 0; k < last; k++) {
            if (lev[k]) {
                score += ds_table[run];
                run = 0;
            } else {
                run++;
            }
        }
        if (score < dec_thresh) {
            for (int k = 0; k < 16; k++)
                lev[k] = 0;
            last = 0;
            count = 0;
        }
    }

    __global short *out = levels + (size_t)b * 16;
    for (int k = 0; k < 16; k++)
        out[k] = (short)lev[k];
    eob[b] = last;
    nnz[b] = count;
}
