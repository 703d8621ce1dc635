/* Halve an RGBA8 image whose pixels are packed one per uint (R in the low byte): each output
 * pixel is the rounded mean of a 2x2 input block, channel by channel, unpacked with shifts. */
__kernel void down2x2_rgba_u32(const int out_w, const int out_h,
                               __global const uint *src,
                               __global uint *dst)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= out_w || y >= out_h)
        return;

    const int in_w = 2 * out_w;
    const int p = (2 * y) * in_w + 2 * x;
    const uint p0 = src[p];
    const uint p1 = src[p + 1];
    const uint p2 = src[p + in_w];
    const uint p3 = src[p + in_w + 1];

    uint packed = 0u;
    for (int shift = 0; shift < 32; shift += 8) {
        const uint sum = ((p0 >> shift) & 0xFFu) + ((p1 >> shift) & 0xFFu)
                       + ((p2 >> shift) & 0xFFu) + ((p3 >> shift) & 0xFFu);
        packed |= ((sum + 2u) >> 2) << shift;
    }
    dst[y * out_w + x] = packed;
}
