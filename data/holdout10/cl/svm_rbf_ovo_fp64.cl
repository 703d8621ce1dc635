#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Multi-class SVM prediction with an RBF kernel, one-vs-one voting, in double precision (libsvm's
 * svm_predict_values, as the ONNX-ML SVMClassifier operator runs it), a sample per work-item. The support
 * vectors are grouped by class (class c owns sv_start[c] .. sv_start[c + 1] - 1) and sv_coef is libsvm's
 * (nclass - 1) x nsv table. Each support vector's kernel value exp(-gamma |x - sv|^2) is computed once and
 * added to the decision value of every pair of classes it belongs to: pair (c, j), c < j, takes coefficient
 * row j - 1, pair (j, c) row j. A positive decision value votes for the pair's first class, else for the
 * second; the label is the first class with the most votes. The decision values are written too. */
#define MAX_CLASS 8
#define MAX_PAIR (MAX_CLASS * (MAX_CLASS - 1) / 2)

__kernel void svm_rbf_ovo_fp64(const int nsample, const int nfeat, const int nclass, const int nsv,
                               const double gamma,
                               __global const double *x,
                               __global const double *sv,
                               __global const int *sv_start,
                               __global const double *sv_coef,
                               __global const double *rho,
                               __global double *decision,
                               __global int *label)
{
    const int i = get_global_id(0);
    if (i >= nsample)
        return;

    const int npair = nclass * (nclass - 1) / 2;
    double dec[MAX_PAIR];
    for (int p = 0; p < npair; p++)
        dec[p] = -rho[p];

    __global const double *xi = x + (size_t)i * nfeat;
    for (int c = 0; c < nclass; c++) {
        for (int s = sv_start[c]; s < sv_start[c + 1]; s++) {
            __global const double *v = sv + (size_t)s * nfeat;
            double d2 = 0.0;
            for (int f = 0; f < nfeat; f++) {
                const double t = xi[f] - v[f];
                d2 += t * t;
            }
            const double kv = exp(-gamma * d2);
            for (int j = 0; j < nclass; j++) {
                if (j == c)
                    continue;
                const int a = min(c, j);
                const int b = max(c, j);
                const int p = a * (2 * nclass - a - 1) / 2 + (b - a - 1);
                const int row = j < c ? j : j - 1;
                dec[p] += sv_coef[(size_t)row * nsv + s] * kv;
            }
        }
    }

    int votes[MAX_CLASS];
    for (int c = 0; c < nclass; c++)
        votes[c] = 0;
    int p = 0;
    for (int a = 0; a < nclass; a++) {
        for (int b = a + 1; b < nclass; b++) {
            if (dec[p] > 0.0)
                votes[a]++;
            else
                votes[b]++;
            decision[(size_t)i * npair + p] = dec[p];
            p++;
        }
    }
    int best = 0;
    for (int c = 1; c < nclass; c++)
        if (votes[c] > votes[best])
            best = c;
    label[i] = best;
}
