/* Mixture-of-experts router of an LLM layer: token t's router logits over nexp experts are turned into
 * probabilities by a softmax, the topk most probable experts are chosen (largest first, the lower
 * index on a tie) by repeated selection with a private bitmask of taken experts, and their weights are
 * renormalised to sum to one when renorm is set. Each choice also counts one token for its expert
 * (atomic_inc), which the dispatch step needs to size the experts' batches. nexp is at most MAX_EXP,
 * topk at most MAX_TOPK. */
#define MAX_EXP 256
#define MAX_TOPK 8

__kernel void moe_router_topk_count(const int ntok,
                                    const int nexp,
                                    const int topk,
                                    const int renorm,
                                    __global const float *logits,
                                    __global int *expert_id,
                                    __global float *expert_weight,
                                    __global int *expert_count)
{
    const int t = get_global_id(0);
    if (t >= ntok)
        return;

    __global const float *l = logits + (size_t)t * nexp;
    float mx = l[0];
    for (int e = 1; e < nexp; e++)
        mx = fmax(mx, l[e]);
    float denom = 0.0f;
    for (int e = 0; e < nexp; e++)
        denom += exp(l[e] - mx);

    uint taken[MAX_EXP / 32];
    for (int w = 0; w < MAX_EXP / 32; w++)
        taken[w] = 0u;

    int ids[MAX_TOPK];
    float wts[MAX_TOPK];
    float wsum = 0.0f;
    for (int r = 0; r < topk; r++) {
        int best = -1;
        float bv = 0.0f;
        for (int e = 0; e < nexp; e++) {
            if (taken[e >> 5] & (1u << (e & 31)))
                continue;
            const float v = l[e];
            if (best < 0 || v > bv) {
                best = e;
                bv = v;
            }
        }
        taken[best >> 5] |= 1u << (best & 31);
        ids[r] = best;
        wts[r] = exp(bv - mx) / denom;
        wsum += wts[r];
    }

    for (int r = 0; r < topk; r++) {
        expert_id[t * topk + r] = ids[r];
        expert_weight[t * topk + r] = renorm ? wts[r] / wsum : wts[r];
        atomic_inc(&expert_count[ids[r]]);
    }
}
