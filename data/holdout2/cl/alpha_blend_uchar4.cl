/* "Over" compositing of a straight-alpha RGBA foreground onto an opaque background, all in 8-bit
 * integer arithmetic: the pixel's alpha is scaled by a global opacity, every channel is mixed with
 * rounding division by 255, and the result is opaque. */
__kernel void alpha_blend_uchar4(const int npixels, const uchar opacity,
                                 __global const uchar4 *fg,
                                 __global const uchar4 *bg,
                                 __global uchar4 *out)
{
    const int i = get_global_id(0);
    if (i >= npixels)
        return;

    const uint4 f = convert_uint4(fg[i]);
    const uint4 b = convert_uint4(bg[i]);
    const uint a = (f.w * (uint)opacity + 127u) / 255u;
    uint4 mixed = (f * a + b * (255u - a) + 127u) / 255u;
    mixed.w = 255u;
    out[i] = convert_uchar4(mixed);
}
