/* Hampel outlier filter for a bank of sensor channels (accelerometers, strain gauges, thermocouples
 * read through an ADC). 2-D NDRange: x = sample, y = channel; channel c's nsamp samples are contiguous.
 * For each sample, the median of the window of 2 * radius + 1 samples centred on it and the median
 * absolute deviation (MAD) from that median are found by insertion sort in private arrays. A sample
 * further than nsigma * 1.4826 * MAD from the median (1.4826 MAD estimates a Gaussian sigma) is an
 * outlier: it is replaced by the median and the channel's outlier count is bumped with atomic_inc.
 * The first and last radius samples of a channel have no full window and are copied unchanged. */
#define MAX_WIN 33

float median_sorted(float *w, int n)
{
    for (int i = 1; i < n; i++) {
        const float v = w[i];
        int j = i - 1;
        while (j >= 0 && w[j] > v) {
            w[j + 1] = w[j];
            j--;
        }
        w[j + 1] = v;
    }
    return w[n / 2];
}

__kernel void hampel_sensor_2d(const int nsamp, const int nchan, const int radius, const float nsigma,
                               __global const float *x,
                               __global float *y,
                               __global int *outliers)
{
    const int t = get_global_id(0);
    const int c = get_global_id(1);
    if (t >= nsamp || c >= nchan)
        return;

    __global const float *row = x + (size_t)c * nsamp;
    const float v = row[t];
    if (t < radius || t >= nsamp - radius) {
        y[(size_t)c * nsamp + t] = v;
        return;
    }

    const int n = 2 * radius + 1;
    float w[MAX_WIN];
    for (int k = 0; k < n; k++)
        w[k] = row[t - radius + k];
    const float med = median_sorted(w, n);
    for (int k = 0; k < n; k++)
        w[k] = fabs(w[k] - med);
    const float mad = median_sorted(w, n);

    if (fabs(v - med) > nsigma * 1.4826f * mad) {
        y[(size_t)c * nsamp + t] = med;
        atomic_inc(&outliers[c]);
    } else {
        y[(size_t)c * nsamp + t] = v;
    }
}
