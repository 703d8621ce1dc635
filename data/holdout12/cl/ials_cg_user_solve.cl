/* Implicit-feedback ALS (Hu, Koren and Volinsky), the user half-step solved approximately by a few conjugate-
 * gradient steps warm-started from the previous factors, as the implicit library does it. For user u with
 * interactions (item i, confidence c_ui) in CSR (indptr, indices, conf), the normal equations are
 *     (YtY + sum_i (c_ui - 1) y_i y_i^T) x_u = sum_i c_ui y_i,
 * YtY (nf x nf, regularization already on its diagonal) precomputed over all items. One work-item per user,
 * vectors in private arrays: the residual is formed once from the warm start, then cg_steps matrix-free CG
 * steps follow, each applying YtY and the user's rank-one terms. A user whose residual is already ~0 (a cold
 * user with no history and zero factors) is left as it is, and CG stops early when the residual vanishes. */
#define MAX_FACTORS 64

__kernel void ials_cg_user_solve(const int nuser, const int nf, const int cg_steps,
                                 __global const int *indptr,
                                 __global const int *indices,
                                 __global const float *conf,
                                 __global const float *y,
                                 __global const float *yty,
                                 __global float *x)
{
    const int u = get_global_id(0);
    if (u >= nuser)
        return;

    float xu[MAX_FACTORS], r[MAX_FACTORS], p[MAX_FACTORS], ap[MAX_FACTORS];
    __global float *xrow = x + (size_t)u * nf;
    for (int f = 0; f < nf; f++)
        xu[f] = xrow[f];

    /* r = b - A x */
    for (int i = 0; i < nf; i++) {
        float s = 0.0f;
        for (int j = 0; j < nf; j++)
            s += yty[i * nf + j] * xu[j];
        r[i] = -s;
    }
    const int k0 = indptr[u];
    const int k1 = indptr[u + 1];
    for (int k = k0; k < k1; k++) {
        const float c = conf[k];
        __global const float *yi = y + (size_t)indices[k] * nf;
        float dot = 0.0f;
        for (int f = 0; f < nf; f++)
            dot += yi[f] * xu[f];
        const float w = c - (c - 1.0f) * dot;
        for (int f = 0; f < nf; f++)
            r[f] += w * yi[f];
    }

    float rsold = 0.0f;
    for (int f = 0; f < nf; f++) {
        p[f] = r[f];
        rsold += r[f] * r[f];
    }
    if (rsold < 1e-20f)
        return;

    for (int it = 0; it < cg_steps; it++) {
        for (int i = 0; i < nf; i++) {
            float s = 0.0f;
            for (int j = 0; j < nf; j++)
                s += yty[i * nf + j] * p[j];
            ap[i] = s;
        }
        for (int k = k0; k < k1; k++) {
            __global const float *yi = y + (size_t)indices[k] * nf;
            float dot = 0.0f;
            for (int f = 0; f < nf; f++)
                dot += yi[f] * p[f];
            const float w = (conf[k] - 1.0f) * dot;
            for (int f = 0; f < nf; f++)
                ap[f] += w * yi[f];
        }

        float pap = 0.0f;
        for (int f = 0; f < nf; f++)
            pap += p[f] * ap[f];
        const float alpha = rsold / pap;
        float rsnew = 0.0f;
        for (int f = 0; f < nf; f++) {
            xu[f] += alpha * p[f];
            r[f] -= alpha * ap[f];
            rsnew += r[f] * r[f];
        }
        if (rsnew < 1e-20f)
            break;
        const float beta = rsnew / rsold;
        for (int f = 0; f < nf; f++)
            p[f] = r[f] + beta * p[f];
        rsold = rsnew;
    }

    for (int f = 0; f < nf; f++)
        xrow[f] = xu[f];
}
