#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Diversity re-ranking of a recommender's candidate lists by maximal marginal relevance, in fp64. Query q has
 * ncand candidates (item ids cand[q * ncand + c], relevance rel[q * ncand + c]) and keeps k of them, picked
 * greedily: each step takes the remaining candidate of largest
 *     lambda * rel - (1 - lambda) * (largest cosine similarity to the items already picked),
 * the largest similarity starting at -1 (the lowest cosine) so that the first pick is the most relevant item;
 * a tie goes to the lower candidate position. Item vectors are float32 rows of items (dim columns), cosines
 * are computed in double. A work-group re-ranks one query at a time, looping by the number of groups: the
 * inverse norms and running largest similarities of its candidates live in __local memory, each step finds the
 * best candidate by a (value, position) tree reduction over the work-items' own bests, stages the picked
 * vector in __local and updates the similarities of the candidates left. Out: the picked item ids in order and
 * the marginal-relevance value each had when picked. The local size must be a power of two. */
#define PICKED 2.0

__kernel void mmr_rerank_group_fp64(const int nquery, const int ncand, const int dim, const int k,
                                    const double lambda,
                                    __global const int *cand,
                                    __global const float *rel,
                                    __global const float *items,
                                    __global int *picked,
                                    __global double *gain,
                                    __local double *maxsim,
                                    __local double *inv_norm,
                                    __local double *pvec,
                                    __local double *bval,
                                    __local int *bpos)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int q = get_group_id(0); q < nquery; q += get_num_groups(0)) {
        __global const int *qc = cand + (size_t)q * ncand;
        __global const float *qr = rel + (size_t)q * ncand;

        for (int c = lid; c < ncand; c += lsz) {
            __global const float *x = items + (size_t)qc[c] * dim;
            double s = 0.0;
            for (int d = 0; d < dim; d++)
                s += (double)x[d] * (double)x[d];
            inv_norm[c] = (s > 0.0) ? 1.0 / sqrt(s) : 0.0;
            maxsim[c] = -1.0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int step = 0; step < k; step++) {
            double best = -INFINITY;
            int bestc = ncand;
            for (int c = lid; c < ncand; c += lsz) {
                if (maxsim[c] == PICKED)
                    continue;
                const double v = lambda * (double)qr[c] - (1.0 - lambda) * maxsim[c];
                if (v > best) {
                    best = v;
                    bestc = c;
                }
            }
            bval[lid] = best;
            bpos[lid] = bestc;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = lsz / 2; s > 0; s >>= 1) {
                if (lid < s) {
                    const double ov = bval[lid + s];
                    const int oc = bpos[lid + s];
                    if (ov > bval[lid] || (ov == bval[lid] && oc < bpos[lid])) {
                        bval[lid] = ov;
                        bpos[lid] = oc;
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }

            const int sel = bpos[0];
            if (lid == 0) {
                picked[(size_t)q * k + step] = qc[sel];
                gain[(size_t)q * k + step] = bval[0];
            }
            __global const float *xs = items + (size_t)qc[sel] * dim;
            for (int d = lid; d < dim; d += lsz)
                pvec[d] = (double)xs[d];
            barrier(CLK_LOCAL_MEM_FENCE);

            const double sn = inv_norm[sel];
            for (int c = lid; c < ncand; c += lsz) {
                if (c == sel) {
                    maxsim[c] = PICKED;
                    continue;
                }
                if (maxsim[c] == PICKED)
                    continue;
                __global const float *x = items + (size_t)qc[c] * dim;
                double dot = 0.0;
                for (int d = 0; d < dim; d++)
                    dot += (double)x[d] * pvec[d];
                maxsim[c] = fmax(maxsim[c], dot * inv_norm[c] * sn);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}
