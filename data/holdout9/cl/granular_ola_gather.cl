/* Granular synthesis by overlap-add, gathered per output sample (no atomics). A grain g starts at output
 * sample onset[g] (onsets sorted ascending), lasts glen[g] <= maxlen samples and plays the mono source from
 * sample gstart[g] on at rate grate[g] (unsigned 16.16 fixed point, so the read position of the grain's
 * sample u is exact: gstart + (u * grate >> 16) plus a 16-bit fraction), linearly interpolated, under a Hann
 * window, scaled by gamp[g] and panned with constant power by gpan[g] in [0, 1]. The work-item of output
 * sample n binary-searches the first grain that can still sound (onset > n - maxlen) and walks the grains
 * from there until the onsets pass n, skipping those already over. out is interleaved stereo. */
__kernel void granular_ola_gather(const int nout, const int ngrains, const int maxlen, const int srclen,
                                  __global const int *onset,
                                  __global const int *glen,
                                  __global const uint *gstart,
                                  __global const uint *grate,
                                  __global const float *gamp,
                                  __global const float *gpan,
                                  __global const float *src,
                                  __global float *out)
{
    const int n = get_global_id(0);
    if (n >= nout)
        return;

    /* lower bound: first g with onset[g] > n - maxlen */
    const int key = n - maxlen;
    int lo = 0;
    int hi = ngrains;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (onset[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }

    float left = 0.0f;
    float right = 0.0f;
    for (int g = lo; g < ngrains; g++) {
        const int o = onset[g];
        if (o > n)
            break;
        const int len = glen[g];
        const int u = n - o;
        if (u >= len)
            continue;

        const ulong phase = (ulong)u * grate[g];
        const uint i = gstart[g] + (uint)(phase >> 16);
        const float frac = (float)(uint)(phase & 0xffffUL) * (1.0f / 65536.0f);
        float s = 0.0f;
        if (i + 1 < (uint)srclen)
            s = src[i] + frac * (src[i + 1] - src[i]);

        const float w = 0.5f - 0.5f * cos(2.0f * M_PI_F * u / len);
        const float v = gamp[g] * w * s;
        const float th = gpan[g] * M_PI_2_F;
        left += v * cos(th);
        right += v * sin(th);
    }
    out[2 * n] = left;
    out[2 * n + 1] = right;
}
