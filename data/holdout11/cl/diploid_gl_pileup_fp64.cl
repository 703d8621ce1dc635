#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Variant calling from a pileup: the ten diploid genotype likelihoods of each site (alleles A C G T, genotypes
 * in VCF order AA AC CC AG CG GG AT CT GT TT, index a2 * (a2 + 1) / 2 + a1 for a1 <= a2), in log10 and fp64.
 * Site s owns the observations site_off[s] .. site_off[s + 1]: a base code (0-3 A C G T, 4 N), its base quality
 * and the read's mapping quality. An N, a base quality below min_bq or a mapping quality below min_mq is
 * skipped; otherwise the error probability is 10^(-q / 10) for q the smaller of the two qualities (capped at
 * max_q), a base matches an allele with probability 1 - e and each other base with e / 3, and a genotype's
 * likelihood of the base is the mean over its two alleles. Out: the likelihoods less their maximum (the best
 * is 0), the index of the most likely genotype (the first among equals) and the number of observations used. */
#define NGT 10

__kernel void diploid_gl_pileup_fp64(const int nsite, const int min_bq, const int min_mq, const int max_q,
                                     __global const int *site_off,
                                     __global const uchar *obs_base,
                                     __global const uchar *obs_bq,
                                     __global const uchar *obs_mq,
                                     __global double *gl,
                                     __global int *best_gt,
                                     __global int *depth_used)
{
    const int s = get_global_id(0);
    if (s >= nsite)
        return;

    double lk[NGT];
    for (int g = 0; g < NGT; g++)
        lk[g] = 0.0;

    int used = 0;
    const int end = site_off[s + 1];
    for (int o = site_off[s]; o < end; o++) {
        const int b = obs_base[o];
        const int bq = obs_bq[o];
        const int mq = obs_mq[o];
        if (b > 3 || bq < min_bq || mq < min_mq)
            continue;
        const int q = min(min(bq, mq), max_q);
        const double e = pow(10.0, -0.1 * q);
        double pa[4];
        for (int a = 0; a < 4; a++)
            pa[a] = (a == b) ? 1.0 - e : e / 3.0;
        int g = 0;
        for (int a2 = 0; a2 < 4; a2++) {
            for (int a1 = 0; a1 <= a2; a1++) {
                lk[g] += log10(0.5 * (pa[a1] + pa[a2]));
                g++;
            }
        }
        used++;
    }

    double top = lk[0];
    int arg = 0;
    for (int g = 1; g < NGT; g++) {
        if (lk[g] > top) {
            top = lk[g];
            arg = g;
        }
    }
    for (int g = 0; g < NGT; g++)
        gl[(size_t)s * NGT + g] = lk[g] - top;
    best_gt[s] = arg;
    depth_used[s] = used;
}
