/* Transcription-factor motif scan: the best log-odds score of each motif on each sequence, both strands.
 * The NDRange is (sequence, motif). A work-group covers get_local_size(1) motifs, whose position weight
 * matrices (width x 4 log-odds, columns A C G T) it first copies into __local memory. A window that holds
 * a base other than ACGT is skipped; a sequence with no valid window keeps the NO_SITE score. */
#define NO_SITE -1000.0f

int base_code(uchar c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
    }
}

__kernel void pwm_scan_local(const int nseq,
                             const int seq_len,
                             const int nmotif,
                             const int width,
                             __global const uchar *seqs,
                             __global const float *pwm,
                             __global float *best,
                             __local float *lpwm)
{
    const int s = get_global_id(0);
    const int ly = get_local_id(1);
    const int m = get_global_id(1);
    const int lid = ly * get_local_size(0) + get_local_id(0);
    const int nthreads = get_local_size(0) * get_local_size(1);

    /* the group's motifs, one after another */
    const int m0 = get_group_id(1) * get_local_size(1);
    const int per_motif = width * 4;
    const int count = min((int)get_local_size(1), nmotif - m0) * per_motif;
    for (int k = lid; k < count; k += nthreads)
        lpwm[k] = pwm[m0 * per_motif + k];
    barrier(CLK_LOCAL_MEM_FENCE);

    if (s >= nseq || m >= nmotif)
        return;

    __local const float *w = lpwm + ly * per_motif;
    __global const uchar *seq = seqs + (size_t)s * seq_len;
    float top = NO_SITE;
    for (int pos = 0; pos + width <= seq_len; pos++) {
        float fwd = 0.0f, rc = 0.0f;
        int j = 0;
        for (; j < width; j++) {
            const int c = base_code(seq[pos + j]);
            if (c < 0)
                break;
            fwd += w[j * 4 + c];
            rc += w[(width - 1 - j) * 4 + (3 - c)];
        }
        if (j < width)
            continue;
        top = fmax(top, fmax(fwd, rc));
    }
    best[m * nseq + s] = top;
}
