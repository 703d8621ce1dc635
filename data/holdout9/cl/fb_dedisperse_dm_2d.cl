/* Incoherent dedispersion of an 8-bit radio filterbank over trial dispersion measures, 2-D NDRange (output
 * time sample, DM trial). The filterbank is stored channel-major: nchan rows of nsamp_in samples, channel 0 at
 * the top of the band. delay_s[c] is channel c's dispersion delay per unit DM in samples, relative to the top
 * of the band (4148.808 s MHz^2 (f_c^-2 - f_top^-2) / tsamp), so channel c of trial d is read rint(dm * delay)
 * samples late. Each channel is flattened by its bandpass (subtract chan_offset, multiply by chan_scale); RFI
 * channels zapped by the flagger have chan_scale 0 and are skipped. The sum over the live channels is divided
 * by sqrt(live channels) so that pure noise comes out with unit variance. */
__kernel void fb_dedisperse_dm_2d(const int nsamp_in, const int nout, const int nchan, const int ndm,
                                  __global const uchar *fb,
                                  __global const float *delay_s,
                                  __global const float *dm_list,
                                  __global const float *chan_offset,
                                  __global const float *chan_scale,
                                  __global float *dedisp)
{
    const int t = get_global_id(0);
    const int d = get_global_id(1);
    if (t >= nout || d >= ndm)
        return;

    const float dm = dm_list[d];
    float acc = 0.0f;
    int live = 0;
    for (int c = 0; c < nchan; c++) {
        const float scale = chan_scale[c];
        if (scale == 0.0f)
            continue;
        const int delay = (int)rint(dm * delay_s[c]);
        const uchar v = fb[(size_t)c * nsamp_in + t + delay];
        acc += ((float)v - chan_offset[c]) * scale;
        live++;
    }
    dedisp[(size_t)d * nout + t] = live > 0 ? acc / sqrt((float)live) : 0.0f;
}
