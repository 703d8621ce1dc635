/* Protein database search: the Smith-Waterman local alignment score of one query against every sequence of a
 * database, BLOSUM62 substitution scores and affine gaps (Gotoh: a gap of length k costs gap_open + (k - 1) *
 * gap_ext). One work-group aligns one database sequence at a time (and moves on by the number of groups): the
 * query rows are split into strips of as many rows as the group has work-items, work-item lid owning row
 * strip + lid, and each strip is swept along anti-diagonals, work-item lid computing column d - lid at step d.
 * A work-item passes its H and F values down to the next one through __local memory; the last row of a strip
 * is kept in __local rows (row_h, row_f) for the first work-item of the next strip. Residues are codes 0 .. 20
 * (20 = X); the 21 x 21 matrix is copied into __local memory first. Out: the best score of each database
 * sequence and the query row and database column where it ends (the smallest column, then the smallest row,
 * among equal scores; -1 and -1 when no cell scores above zero). */
#define NAA 21
#define NEG_INF (-1000000)

__kernel void sw_blosum_wavefront_group(const int ndb, const int qlen,
                                        const int gap_open, const int gap_ext,
                                        __global const uchar *query,
                                        __global const uchar *db_res,
                                        __global const int *db_off,
                                        __global const int *blosum,
                                        __global int *best_score,
                                        __global int *q_end,
                                        __global int *t_end,
                                        __local int *row_h,
                                        __local int *row_f,
                                        __local int *pass_h,
                                        __local int *pass_f)
{
    __local int subst[NAA * NAA];
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int k = lid; k < NAA * NAA; k += lsz)
        subst[k] = blosum[k];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int p = get_group_id(0); p < ndb; p += get_num_groups(0)) {
        const int t0 = db_off[p];
        const int tlen = db_off[p + 1] - t0;
        __global const uchar *target = db_res + t0;

        for (int j = lid; j < tlen; j += lsz) {
            row_h[j] = 0;
            row_f[j] = NEG_INF;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        int best = 0, bi = -1, bj = -1;
        for (int s0 = 0; s0 < qlen; s0 += lsz) {
            const int i = s0 + lid;
            const int active = i < qlen;
            const int nrow = min(lsz, qlen - s0);
            __local const int *srow = subst + (active ? query[i] : 0) * NAA;
            int h_left = 0, e = NEG_INF, diag = 0;

            for (int d = 0; d < tlen + nrow - 1; d++) {
                const int j = d - lid;
                const int work = active && j >= 0 && j < tlen;
                int up = 0, up_f = NEG_INF;
                if (work) {
                    if (lid == 0) {
                        up = row_h[j];
                        up_f = row_f[j];
                    } else {
                        up = pass_h[lid - 1];
                        up_f = pass_f[lid - 1];
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);

                if (work) {
                    const int f = max(up - gap_open, up_f - gap_ext);
                    e = max(h_left - gap_open, e - gap_ext);
                    int h = diag + srow[target[j]];
                    h = max(h, max(e, f));
                    h = max(h, 0);
                    if (h > best || (h == best && (j < bj || (j == bj && i < bi)))) {
                        best = h;
                        bi = i;
                        bj = j;
                    }
                    pass_h[lid] = h;
                    pass_f[lid] = f;
                    if (lid == lsz - 1) {
                        row_h[j] = h;
                        row_f[j] = f;
                    }
                    h_left = h;
                    diag = up;
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }

        /* the group's best cell: a tree over the work-items, in the pass_* arrays and row_f */
        pass_h[lid] = best;
        pass_f[lid] = bi;
        row_f[lid] = bj;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s) {
                const int h = pass_h[lid + s], oi = pass_f[lid + s], oj = row_f[lid + s];
                const int mh = pass_h[lid], mi = pass_f[lid], mj = row_f[lid];
                if (h > mh || (h == mh && h > 0 && (oj < mj || (oj == mj && oi < mi)))) {
                    pass_h[lid] = h;
                    pass_f[lid] = oi;
                    row_f[lid] = oj;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            best_score[p] = pass_h[0];
            q_end[p] = pass_f[0];
            t_end[p] = row_f[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
