#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Pair-HMM forward algorithm of variant callers (GATK HaplotypeCaller): log10 P(read | haplotype) summed
 * over all alignments with match, insertion and deletion states. Work-item p scores read p against
 * haplotype hap_of[p]. Base, insertion and deletion qualities are phred scores per read base; the gap
 * continuation penalty is one phred value. The rows of the M, I and D matrices live in private arrays;
 * every value is scaled by 2^1020 (as GATK does) so the products of small probabilities stay normal. */
#define MAX_HAP 256
#define INITIAL_SCALE 0x1p1020

double phred_to_prob(int q)
{
    return pow(10.0, -0.1 * q);
}

__kernel void pairhmm_forward_fp64(const int npairs,
                                   const int read_len,
                                   const int hap_len,
                                   const int gcp_qual,
                                   __global const uchar *reads,
                                   __global const uchar *base_qual,
                                   __global const uchar *ins_qual,
                                   __global const uchar *del_qual,
                                   __global const uchar *haps,
                                   __global const int *hap_of,
                                   __global double *loglik)
{
    const int p = get_global_id(0);
    if (p >= npairs)
        return;

    const size_t roff = (size_t)p * read_len;
    __global const uchar *hap = haps + (size_t)hap_of[p] * hap_len;
    const double gcp = phred_to_prob(gcp_qual);

    double M[MAX_HAP + 1], I[MAX_HAP + 1], D[MAX_HAP + 1];
    for (int j = 0; j <= hap_len; j++) {
        M[j] = 0.0;
        I[j] = 0.0;
        D[j] = INITIAL_SCALE / hap_len;
    }

    for (int i = 0; i < read_len; i++) {
        const uchar base = reads[roff + i];
        const double err = phred_to_prob(base_qual[roff + i]);
        const double to_ins = phred_to_prob(ins_qual[roff + i]);
        const double to_del = phred_to_prob(del_qual[roff + i]);
        const double stay = 1.0 - (to_ins + to_del);
        const double back = 1.0 - gcp;

        double m_diag = M[0], i_diag = I[0], d_diag = D[0]; /* row i-1, column j-1 */
        double m_left = 0.0, d_left = 0.0;                  /* row i, column j-1 */
        M[0] = 0.0;
        I[0] = 0.0;
        D[0] = 0.0;
        for (int j = 1; j <= hap_len; j++) {
            const uchar h = hap[j - 1];
            const double prior = (base == h || base == 'N' || h == 'N') ? 1.0 - err : err / 3.0;
            const double m_up = M[j], i_up = I[j], d_up = D[j];
            const double m = prior * (m_diag * stay + (i_diag + d_diag) * back);
            const double ins = m_up * to_ins + i_up * gcp;
            const double del = m_left * to_del + d_left * gcp;
            m_diag = m_up;
            i_diag = i_up;
            d_diag = d_up;
            M[j] = m;
            I[j] = ins;
            D[j] = del;
            m_left = m;
            d_left = del;
        }
    }

    double sum = 0.0;
    for (int j = 1; j <= hap_len; j++)
        sum += M[j] + I[j];
    loglik[p] = log10(sum) - log10(INITIAL_SCALE);
}
