/* HEVC in-loop deblocking of the luma plane, the vertical-edge pass (H.265 section 8.7.2), 8-bit samples. Edges lie
 * on the 8x8 grid; the picture's left border (x = 0) is never filtered. A work-item takes one 4-row segment of one
 * edge (2-D NDRange: dim 0 the edge column, x = 8 * (id + 1), dim 1 the segment, rows 4 * id .. 4 * id + 3). An
 * edge reads 4 samples on each side and changes at most 3, so the edges of the pass never touch each other's
 * samples and are filtered in place, all at once.
 *
 * bs holds the boundary strength (0, 1, 2) of each segment, (width / 8) per segment row, column 0 unused; qp the
 * QpY of each 8x8 block. beta and tc come from the spec's tables at the average QP of the two sides (tc indexed
 * 2 higher for bS 2, both shifted by the slice offsets). Rows 0 and 3 decide: no filtering when the second
 * differences on both sides are not flat enough (d >= beta), the strong filter (3 samples per side, clipped to
 * +/- 2 tc) when both rows pass the strong test, otherwise the normal filter per row, which leaves a row alone
 * when |delta| >= 10 tc (a real edge) and changes p1 / q1 only on a side that is smooth enough. */

__constant uchar beta_table[52] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64
};

__constant uchar tc_table[54] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  1,  1,  1,
     2,  2,  2,  2,  3,  3,  3,  3,  4,  4,  4,  5,  5,  6,  6,  7,  8,  9, 10, 11, 13, 14, 16, 18, 20, 22, 24
};

static inline int clip3(int lo, int hi, int v)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static inline int iabs(int v)
{
    return v < 0 ? -v : v;
}

/* the strong-filter test of one row (8.7.2.5.6), dpq already doubled */
static inline int strong_ok(__global const uchar *s, int dpq, int beta, int tc)
{
    const int p0 = s[-1], p3 = s[-4], q0 = s[0], q3 = s[3];
    return dpq < (beta >> 2) && iabs(p3 - p0) + iabs(q0 - q3) < (beta >> 3) && iabs(p0 - q0) < ((5 * tc + 1) >> 1);
}

__kernel void hevc_luma_vedge_deblock_2d(const int width, const int height,
                                         const int beta_offset_div2, const int tc_offset_div2,
                                         __global const uchar *bs,
                                         __global const uchar *qp,
                                         __global uchar *pic)
{
    const int edge = get_global_id(0) + 1;
    const int seg = get_global_id(1);
    const int ncol = width >> 3;
    if (edge >= ncol || seg >= (height >> 2))
        return;

    const int strength = bs[seg * ncol + edge];
    if (strength == 0)
        return;

    const int qrow = (seg >> 1) * ncol;
    const int qpl = (qp[qrow + edge - 1] + qp[qrow + edge] + 1) >> 1;
    const int beta = beta_table[clip3(0, 51, qpl + (beta_offset_div2 << 1))];
    const int tc = tc_table[clip3(0, 53, qpl + 2 * (strength - 1) + (tc_offset_div2 << 1))];

    __global uchar *row0 = pic + (size_t)(seg << 2) * width + (edge << 3);
    __global uchar *row3 = row0 + 3 * (size_t)width;

    const int dp0 = iabs(row0[-3] - 2 * row0[-2] + row0[-1]);
    const int dp3 = iabs(row3[-3] - 2 * row3[-2] + row3[-1]);
    const int dq0 = iabs(row0[2] - 2 * row0[1] + row0[0]);
    const int dq3 = iabs(row3[2] - 2 * row3[1] + row3[0]);
    const int dpq0 = dp0 + dq0, dpq3 = dp3 + dq3;
    if (dpq0 + dpq3 >= beta)
        return;

    const int strong = strong_ok(row0, 2 * dpq0, beta, tc) && strong_ok(row3, 2 * dpq3, beta, tc);
    const int side = (beta + (beta >> 1)) >> 3;
    const int use_p1 = dp0 + dp3 < side;
    const int use_q1 = dq0 + dq3 < side;
    const int tc2 = 2 * tc, tch = tc >> 1;

    for (int k = 0; k < 4; k++) {
        __global uchar *s = row0 + (size_t)k * width;
        const int p3 = s[-4], p2 = s[-3], p1 = s[-2], p0 = s[-1];
        const int q0 = s[0], q1 = s[1], q2 = s[2], q3 = s[3];
        if (strong) {
            s[-3] = (uchar)clip3(p2 - tc2, p2 + tc2, (2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3);
            s[-2] = (uchar)clip3(p1 - tc2, p1 + tc2, (p2 + p1 + p0 + q0 + 2) >> 2);
            s[-1] = (uchar)clip3(p0 - tc2, p0 + tc2, (p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3);
            s[0] = (uchar)clip3(q0 - tc2, q0 + tc2, (p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3);
            s[1] = (uchar)clip3(q1 - tc2, q1 + tc2, (p0 + q0 + q1 + q2 + 2) >> 2);
            s[2] = (uchar)clip3(q2 - tc2, q2 + tc2, (p0 + q0 + q1 + 3 * q2 + 2 * q3 + 4) >> 3);
        } else {
            int delta = (9 * (q0 - p0) - 3 * (q1 - p1) + 8) >> 4;
            if (iabs(delta) >= tc * 10)
                continue;
            delta = clip3(-tc, tc, delta);
            s[-1] = (uchar)clip3(0, 255, p0 + delta);
            s[0] = (uchar)clip3(0, 255, q0 - delta);
            if (use_p1) {
                const int dp = clip3(-tch, tch, (((p2 + p0 + 1) >> 1) - p1 + delta) >> 1);
                s[-2] = (uchar)clip3(0, 255, p1 + dp);
            }
            if (use_q1) {
                const int dq = clip3(-tch, tch, (((q2 + q0 + 1) >> 1) - q1 - delta) >> 1);
                s[1] = (uchar)clip3(0, 255, q1 + dq);
            }
        }
    }
}
