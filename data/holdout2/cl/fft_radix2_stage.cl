/* One radix-2 stage of an out-of-place, self-sorting (Stockham) FFT on complex floats. There are
 * n/2 work-items; `span` is 1, 2, 4, ... n/2 for successive stages. Work-item t combines elements t
 * and t + n/2 with the twiddle exp(-i pi k / span) and writes a pair span apart. */
__kernel void fft_radix2_stage(const int n, const int span,
                               __global const float2 *src,
                               __global float2 *dst)
{
    const int t = get_global_id(0);
    const int k = t % span;
    const int group = t / span;

    const float2 a = src[t];
    const float2 b = src[t + n / 2];
    float c;
    const float s = sincos(-M_PI_F * (float)k / (float)span, &c);
    const float2 bw = (float2)(b.x * c - b.y * s, b.x * s + b.y * c);

    const int o = group * 2 * span + k;
    dst[o] = a + bw;
    dst[o + span] = a - bw;
}
