/* Biquad IIR filter (transposed direct form II) over multichannel audio, one work-item per channel
 * walking all of its samples in order. The samples are interleaved frame by frame, as in a WAV
 * file, so at every step neighbouring work-items touch neighbouring floats. Each channel has its
 * own normalised coefficients b0 b1 b2 a1 a2 (a0 = 1); the filter state starts at zero. */
__kernel void biquad_df2t_channels(const int channels, const int frames,
                                   __global const float *coef,
                                   __global const float *in,
                                   __global float *out)
{
    const int ch = get_global_id(0);
    if (ch >= channels)
        return;

    const float b0 = coef[5 * ch + 0];
    const float b1 = coef[5 * ch + 1];
    const float b2 = coef[5 * ch + 2];
    const float a1 = coef[5 * ch + 3];
    const float a2 = coef[5 * ch + 4];

    float z1 = 0.0f;
    float z2 = 0.0f;
    for (int t = 0; t < frames; t++) {
        const int i = t * channels + ch;
        const float x = in[i];
        const float y = b0 * x + z1;
        z1 = b1 * x - a1 * y + z2;
        z2 = b2 * x - a2 * y;
        out[i] = y;
    }
}
