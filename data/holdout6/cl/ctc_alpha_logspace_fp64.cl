#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* CTC loss of a speech / handwriting recogniser, forward (alpha) recursion in log space, fp64.
 * Work-item b handles utterance b: its first input_len[b] frames of log-probabilities (batch-major,
 * max_frames x nclass per utterance, class 0 the blank) and its label_len[b] labels. The extended
 * label sequence puts a blank before, between and after the labels (2L + 1 states); alpha over the
 * states lives in a private array and is updated in place from the last state down. A state may skip
 * the blank before it when its label differs from the label two states back. The loss is minus the
 * log-probability of all alignments ending in the last label or the final blank. */
#define MAX_LABELS 64
#define MAX_STATES (2 * MAX_LABELS + 1)

double log_add(double a, double b)
{
    if (a == -INFINITY)
        return b;
    if (b == -INFINITY)
        return a;
    const double m = fmax(a, b);
    return m + log1p(exp(-fabs(a - b)));
}

__kernel void ctc_alpha_logspace_fp64(const int nbatch,
                                      const int max_frames,
                                      const int nclass,
                                      const int max_labels,
                                      __global const double *log_probs,
                                      __global const int *labels,
                                      __global const int *input_len,
                                      __global const int *label_len,
                                      __global double *nll)
{
    const int b = get_global_id(0);
    if (b >= nbatch)
        return;

    __global const double *lp = log_probs + (size_t)b * max_frames * nclass;
    __global const int *lab = labels + b * max_labels;
    const int T = input_len[b];
    const int S = 2 * label_len[b] + 1;

    double alpha[MAX_STATES];
    for (int s = 0; s < S; s++)
        alpha[s] = -INFINITY;
    alpha[0] = lp[0];
    if (S > 1)
        alpha[1] = lp[lab[0]];

    for (int t = 1; t < T; t++) {
        __global const double *frame = lp + t * nclass;
        for (int s = S - 1; s >= 0; s--) {
            double a = alpha[s];
            if (s >= 1)
                a = log_add(a, alpha[s - 1]);
            int cls = 0;
            if (s & 1) {
                cls = lab[s >> 1];
                if (s >= 3 && lab[(s >> 1) - 1] != cls)
                    a = log_add(a, alpha[s - 2]);
            }
            alpha[s] = a + frame[cls];
        }
    }

    const double end = S > 1 ? log_add(alpha[S - 1], alpha[S - 2]) : alpha[0];
    nll[b] = -end;
}
