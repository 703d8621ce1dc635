#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Linear prediction analysis of speech frames in double precision, one work-item per frame (autocorrelation
 * method). Frame f covers samples f * hop .. f * hop + len - 1 of x; each sample is pre-emphasised
 * (x[i] - preemph * x[i - 1], the sample before the signal taken as 0) and weighted by win. The autocorrelation
 * r[0..order] is lag-windowed (lagw, a Gaussian bandwidth expansion; lagw[0] carries the white-noise
 * correction) and the Levinson-Durbin recursion solves for the predictor A(z) = 1 + a1 z^-1 + ... + ap z^-p.
 * A frame whose energy r[0] is below silence is skipped (all zeros, order 0); the recursion stops early when a
 * reflection coefficient reaches magnitude 1 (the frame keeps the order reached). Per frame: lpc (a1 .. ap),
 * refl (k1 .. kp, zero beyond the order reached), the prediction error power err and the order reached. */
#define MAXORDER 32

static double emph_sample(__global const float *x, __global const double *win, const int start, const int j,
                          const double preemph)
{
    const int i = start + j;
    const double prev = (i > 0) ? (double)x[i - 1] : 0.0;
    return ((double)x[i] - preemph * prev) * win[j];
}

__kernel void lpc_levinson_frames_fp64(const int nframes, const int hop, const int len, const int order,
                                       const double preemph, const double silence,
                                       __global const float *x,
                                       __global const double *win,
                                       __global const double *lagw,
                                       __global double *lpc,
                                       __global double *refl,
                                       __global double *err,
                                       __global int *reached)
{
    const int f = get_global_id(0);
    if (f >= nframes)
        return;
    const int start = f * hop;

    double r[MAXORDER + 1];
    for (int l = 0; l <= order; l++) {
        double acc = 0.0;
        for (int j = l; j < len; j++)
            acc += emph_sample(x, win, start, j, preemph) * emph_sample(x, win, start, j - l, preemph);
        r[l] = acc * lagw[l];
    }

    double a[MAXORDER + 1];
    double k[MAXORDER + 1];
    for (int i = 0; i <= order; i++) {
        a[i] = 0.0;
        k[i] = 0.0;
    }
    a[0] = 1.0;
    double e = r[0];
    int p = 0;

    if (e >= silence) {
        for (int i = 1; i <= order; i++) {
            double acc = r[i];
            for (int j = 1; j < i; j++)
                acc += a[j] * r[i - j];
            const double ki = -acc / e;
            if (fabs(ki) >= 1.0)
                break;
            for (int j = 1; 2 * j < i; j++) {
                const double aj = a[j];
                const double aij = a[i - j];
                a[j] = aj + ki * aij;
                a[i - j] = aij + ki * aj;
            }
            if ((i & 1) == 0)
                a[i / 2] += ki * a[i / 2];
            a[i] = ki;
            k[i] = ki;
            e *= 1.0 - ki * ki;
            p = i;
        }
    } else {
        e = 0.0;
    }

    __global double *outa = lpc + (size_t)f * order;
    __global double *outk = refl + (size_t)f * order;
    for (int i = 1; i <= order; i++) {
        outa[i - 1] = a[i];
        outk[i - 1] = k[i];
    }
    err[f] = e;
    reached[f] = p;
}
