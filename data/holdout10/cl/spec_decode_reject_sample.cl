#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Rejection sampling of speculative decoding, a sequence per work-item. The draft model proposed nspec
 * tokens draft_ids with probabilities draft_probs; the target model scored the same positions plus one
 * more (target_probs, nspec + 1 rows of vocab probabilities a sequence). Draft token n is accepted when
 * u_accept * q <= p (probability min(1, p / q)); at the first rejection the token is drawn instead from
 * the residual max(p - q, 0), renormalised, and the sequence stops; when every draft token is accepted a
 * bonus token is drawn from the last target row. Draws walk the cumulative sum (in double) up to
 * u_sample times the total. The emitted tokens go to out_ids, -1 after the last; num_accepted counts the
 * accepted draft tokens, and the batch's total is added to accepted_total for the acceptance-rate metric. */

int sample_residual(__global const float *p, __global const float *q, const int use_q, const int vocab,
                    const float u)
{
    double total = 0.0;
    for (int v = 0; v < vocab; v++) {
        const float r = use_q ? fmax(p[v] - q[v], 0.0f) : p[v];
        total += (double)r;
    }
    const double thr = (double)u * total;
    double cum = 0.0;
    int last = 0;
    for (int v = 0; v < vocab; v++) {
        const float r = use_q ? fmax(p[v] - q[v], 0.0f) : p[v];
        if (r > 0.0f) {
            cum += (double)r;
            last = v;
            if (cum > thr)
                return v;
        }
    }
    return last;
}

__kernel void spec_decode_reject_sample(const int nseq, const int nspec, const int vocab,
                                        __global const float *target_probs,
                                        __global const float *draft_probs,
                                        __global const int *draft_ids,
                                        __global const float *u_accept,
                                        __global const float *u_sample,
                                        __global int *out_ids,
                                        __global int *num_accepted,
                                        __global int *accepted_total)
{
    const int s = get_global_id(0);
    if (s >= nseq)
        return;

    __global const float *pt = target_probs + (size_t)s * (nspec + 1) * vocab;
    __global const float *pd = draft_probs + (size_t)s * nspec * vocab;
    __global int *o = out_ids + s * (nspec + 1);
    int n = 0;
    while (n < nspec) {
        const int tok = draft_ids[s * nspec + n];
        const float p = pt[(size_t)n * vocab + tok];
        const float q = pd[(size_t)n * vocab + tok];
        if (u_accept[s * nspec + n] * q > p)
            break;
        o[n] = tok;
        n++;
    }
    if (n < nspec)
        o[n] = sample_residual(pt + (size_t)n * vocab, pd + (size_t)n * vocab, 1, vocab, u_sample[s]);
    else
        o[n] = sample_residual(pt + (size_t)nspec * vocab, pd, 0, vocab, u_sample[s]);
    for (int i = n + 1; i <= nspec; i++)
        o[i] = -1;
    num_accepted[s] = n;
    atomic_add(accepted_total, n);
}
