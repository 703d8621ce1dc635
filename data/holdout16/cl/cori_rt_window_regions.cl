/* Effective reproduction number R_t by Cori's method for nreg regions over ndays days of daily case counts
 * (cases[t * nreg + g], day-major int32, as a surveillance table is stored). The total infectiousness of day t is
 *   Lambda_t = sum_{s=1}^{min(t, smax)} w_s I_{t-s}
 * with w_s the discretised serial interval (si_w[s - 1]). Over the window of the last win days (t - win + 1 .. t)
 * a Gamma(a, b) prior on R gives a Gamma posterior of shape a + sum I and rate 1 / b + sum Lambda. One work-item
 * per region walks the days in order, keeping the window's case total exactly as an integer running sum and the
 * window's Lambda values in a private ring; it writes the posterior mean and a Wilson-Hilferty approximation of
 * the 97.5 % quantile, or zeros while the window is incomplete or holds fewer than min_cases cases. */

#define MAXWIN 32

__kernel void cori_rt_window_regions(const int nreg, const int ndays, const int smax, const int win,
                                     const int min_cases, const float a_prior, const float b_prior,
                                     __global const int *cases,
                                     __global const float *si_w,
                                     __global float *rt_mean,
                                     __global float *rt_hi)
{
    const int g = get_global_id(0);
    if (g >= nreg)
        return;

    float lam[MAXWIN];
    int sum_i = 0;
    for (int t = 0; t < ndays; t++) {
        float L = 0.0f;
        const int smx = min(t, smax);
        for (int s = 1; s <= smx; s++)
            L += si_w[s - 1] * (float)cases[(size_t)(t - s) * nreg + g];
        lam[t % win] = L;

        sum_i += cases[(size_t)t * nreg + g];
        if (t >= win)
            sum_i -= cases[(size_t)(t - win) * nreg + g];

        float mean = 0.0f, hi = 0.0f;
        if (t >= win - 1 && sum_i >= min_cases) {
            float sum_l = 0.0f;
            for (int k = 0; k < win; k++)
                sum_l += lam[k];
            const float shape = a_prior + (float)sum_i;
            const float rate = 1.0f / b_prior + sum_l;
            mean = shape / rate;
            const float v = 1.0f / (9.0f * shape);
            const float c = 1.0f - v + 1.959964f * sqrt(v);
            hi = mean * c * c * c;
        }
        rt_mean[(size_t)t * nreg + g] = mean;
        rt_hi[(size_t)t * nreg + g] = hi;
    }
}
