/* Coherent plane-wave compounding by delay-and-sum with a coherence factor, one image pixel per work-item
 * (pixels depth-major, p = iz * nx + ix). The probe has nch elements at elem_x (metres, ascending); for each
 * of nang plane waves (steering sines/cosines in ang_sin / ang_cos) rf[(a * nch + e) * nsamp + k] holds the
 * echo of element e. The transmit delay is that of a plane wave leaving the first element on its side at
 * t = 0; the receive delay the element's distance to the pixel. Times are turned into samples with fs_c
 * (sampling rate over sound speed, per metre) and the acquisition's start t0 (samples); the sample is
 * interpolated linearly. The receive aperture grows with depth at f-number fnum with a Hann apodization;
 * elements outside it are skipped. bf is the compounded sum, cf the coherence factor
 * |sum|^2 / (n * sum of squares) over the n delayed samples used. */
__kernel void das_planewave_coherence(const int nx, const int nz, const int nch, const int nang, const int nsamp,
                                      const float x0, const float dxp, const float z0, const float dzp,
                                      const float fnum, const float fs_c, const float t0,
                                      __global const float *elem_x,
                                      __global const float *ang_sin,
                                      __global const float *ang_cos,
                                      __global const float *rf,
                                      __global float *bf,
                                      __global float *cf)
{
    const int p = get_global_id(0);
    if (p >= nx * nz)
        return;

    const int ix = p % nx;
    const int iz = p / nx;
    const float x = x0 + (float)ix * dxp;
    const float z = z0 + (float)iz * dzp;
    const float half_ap = 0.5f * z / fnum;
    const float x_first = elem_x[0];
    const float x_last = elem_x[nch - 1];

    float sum = 0.0f, sum2 = 0.0f;
    int used = 0;
    for (int a = 0; a < nang; a++) {
        const float sa = ang_sin[a];
        const float ca = ang_cos[a];
        const float xref = (sa >= 0.0f) ? x_first : x_last;
        const float d_tx = z * ca + (x - xref) * sa;
        __global const float *frame = rf + (size_t)a * nch * nsamp;
        for (int e = 0; e < nch; e++) {
            const float dx = x - elem_x[e];
            if (fabs(dx) > half_ap)
                continue;
            const float d_rx = sqrt(z * z + dx * dx);
            const float s = (d_tx + d_rx) * fs_c - t0;
            const int k = (int)floor(s);
            if (k < 0 || k >= nsamp - 1)
                continue;
            const float f = s - (float)k;
            __global const float *trace = frame + (size_t)e * nsamp;
            const float apod = 0.5f + 0.5f * cos(M_PI_F * dx / half_ap);
            const float val = apod * ((1.0f - f) * trace[k] + f * trace[k + 1]);
            sum += val;
            sum2 += val * val;
            used++;
        }
    }
    bf[p] = sum;
    cf[p] = (used > 0 && sum2 > 0.0f) ? sum * sum / ((float)used * sum2) : 0.0f;
}
