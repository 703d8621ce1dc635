/* Check-node update of a flooding LDPC decoder, normalised min-sum, one parity check per work-item.
 * The parity-check matrix is stored by rows (row_ptr / col_idx, irregular row weights); llr_post holds
 * each variable's current posterior LLR (positive = bit 0) and c2v_old the check-to-variable messages of
 * the previous iteration, one per edge. The variable-to-check message of an edge is the posterior minus
 * that edge's own old message. First pass: sign parity, smallest and second smallest magnitude and the
 * edge of the smallest; second pass: every edge gets alpha x (the minimum over the other edges) with
 * the product of the other signs. The check's parity on the hard decisions is written too, and the
 * unsatisfied checks are counted (early-termination test). */
__kernel void ldpc_minsum_check_rows(const int nchk, const float alpha,
                                     __global const int *row_ptr,
                                     __global const int *col_idx,
                                     __global const float *llr_post,
                                     __global const float *c2v_old,
                                     __global float *c2v_new,
                                     __global uchar *parity,
                                     __global int *unsat)
{
    const int r = get_global_id(0);
    if (r >= nchk)
        return;

    const int beg = row_ptr[r];
    const int end = row_ptr[r + 1];
    float min1 = FLT_MAX, min2 = FLT_MAX;
    int pos = -1;
    uint sgn = 0u, hard = 0u;

    for (int e = beg; e < end; e++) {
        const float lp = llr_post[col_idx[e]];
        const float v = lp - c2v_old[e];
        hard ^= (lp < 0.0f);
        sgn ^= (v < 0.0f);
        const float m = fabs(v);
        if (m < min1) {
            min2 = min1;
            min1 = m;
            pos = e;
        } else if (m < min2) {
            min2 = m;
        }
    }

    for (int e = beg; e < end; e++) {
        const float v = llr_post[col_idx[e]] - c2v_old[e];
        const float mag = alpha * ((e == pos) ? min2 : min1);
        c2v_new[e] = (sgn ^ (v < 0.0f)) ? -mag : mag;
    }

    parity[r] = (uchar)hard;
    if (hard)
        atomic_inc(unsat);
}
