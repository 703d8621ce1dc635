#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Local linear trend Kalman filter, one time series per work-item, in double precision.
 * State (level, slope), transition [[1 1] [0 1]], observation of the level with noise variance r_obs[s],
 * process noise diag(q_level[s], q_slope[s]). Observations are time-major: y[t * nser + s]; a missing
 * observation is NaN and only the prediction step is taken. Writes the filtered level per step and the
 * Gaussian log-likelihood of the observed innovations. */
__kernel void kalman_trend_fp64(const int nser, const int nt, const double p0,
                                __global const double *y,
                                __global const double *q_level,
                                __global const double *q_slope,
                                __global const double *r_obs,
                                __global double *level,
                                __global double *loglik,
                                __global int *nobs)
{
    const int s = get_global_id(0);
    if (s >= nser)
        return;

    const double ql = q_level[s], qs = q_slope[s], r = r_obs[s];
    const double log2pi = 1.8378770664093453;
    double l = 0.0, b = 0.0;
    double P00 = p0, P01 = 0.0, P11 = p0;
    double ll = 0.0;
    int seen = 0;

    for (int t = 0; t < nt; t++) {
        /* predict */
        const double a0 = l + b;
        const double a1 = b;
        const double p00 = P00 + 2.0 * P01 + P11 + ql;
        const double p01 = P01 + P11;
        const double p11 = P11 + qs;

        const double yt = y[(size_t)t * nser + s];
        if (isnan(yt)) {
            l = a0;
            b = a1;
            P00 = p00;
            P01 = p01;
            P11 = p11;
        } else {
            const double v = yt - a0;
            const double f = p00 + r;
            const double k0 = p00 / f;
            const double k1 = p01 / f;
            l = a0 + k0 * v;
            b = a1 + k1 * v;
            P00 = p00 - k0 * p00;
            P01 = p01 - k0 * p01;
            P11 = p11 - k1 * p01;
            ll -= 0.5 * (log2pi + log(f) + v * v / f);
            seen++;
        }
        level[(size_t)t * nser + s] = l;
    }
    loglik[s] = ll;
    nobs[s] = seen;
}
