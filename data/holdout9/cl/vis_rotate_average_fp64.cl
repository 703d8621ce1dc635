#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Phase rotation of radio-interferometer visibilities to a new phase centre, then averaging in time and
 * frequency: one averaged visibility per work-item (baseline, output integration, output channel; the channel
 * fastest). uvw are in metres per baseline and integration, fp64. The new centre's direction cosines (dl, dm)
 * relative to the old one give the geometric path difference d = u dl + v dm + w (sqrt(1 - dl^2 - dm^2) - 1),
 * and the visibility is turned by exp(+2 pi i nu d / c) with the phase in fp64: nu d / c reaches 10^5 turns on
 * long baselines, far past what float can hold to a fraction of a turn. Across the channels of an integration
 * the phasor steps by exp(2 pi i dfreq d / c), a complex multiply in fp64 instead of a sincos per channel.
 * Flagged samples (flag != 0) and rows of zero weight are skipped, the others weighted by their row's weight.
 * Output: the weighted mean visibility (0 where everything was flagged) and the weight sum. */
__kernel void vis_rotate_average_fp64(const int nbl, const int ntime, const int nchan, const int tavg, const int favg,
                                      const double dl, const double dm, const double freq0, const double dfreq,
                                      __global const double *uvw,
                                      __global const float2 *vis,
                                      __global const uchar *flag,
                                      __global const float *weight,
                                      __global float2 *vis_avg,
                                      __global float *wsum)
{
    const int nto = ntime / tavg;
    const int nco = nchan / favg;
    const int o = get_global_id(0);
    if (o >= nbl * nto * nco)
        return;
    const int co = o % nco;
    const int to = (o / nco) % nto;
    const int bl = o / (nco * nto);

    const double two_pi_c = 6.283185307179586 / 299792458.0;
    const double dn = sqrt(1.0 - dl * dl - dm * dm) - 1.0;
    const int ch0 = co * favg;

    float2 acc = (float2)(0.0f, 0.0f);
    float wacc = 0.0f;
    for (int tt = 0; tt < tavg; tt++) {
        const size_t row = (size_t)bl * ntime + to * tavg + tt;
        const float w = weight[row];
        if (w <= 0.0f)
            continue;
        const double d = uvw[3 * row] * dl + uvw[3 * row + 1] * dm + uvw[3 * row + 2] * dn;
        double pr, pi;
        pi = sincos(two_pi_c * (freq0 + ch0 * dfreq) * d, &pr);
        double sr;
        const double si = sincos(two_pi_c * dfreq * d, &sr);
        for (int cc = 0; cc < favg; cc++) {
            const size_t idx = row * nchan + ch0 + cc;
            if (!flag[idx]) {
                const float2 v = vis[idx];
                const float c = (float)pr, s = (float)pi;
                acc.x += w * (v.x * c - v.y * s);
                acc.y += w * (v.x * s + v.y * c);
                wacc += w;
            }
            const double nr = pr * sr - pi * si;
            pi = pr * si + pi * sr;
            pr = nr;
        }
    }
    vis_avg[o] = wacc > 0.0f ? acc / wacc : (float2)(0.0f, 0.0f);
    wsum[o] = wacc;
}
