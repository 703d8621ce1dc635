/* Convert one NV12 video frame to RGBA8 packed one pixel per uint (R in the low byte, alpha 255).
 * NV12 is a full-resolution Y plane followed by a half-resolution plane of interleaved U,V bytes,
 * one pair per 2x2 block of pixels. BT.601 limited range in 8.8 fixed point, as software decoders
 * do it: C = Y - 16, D = U - 128, E = V - 128, then R = (298 C + 409 E + 128) >> 8 and so on. */
uint to_byte(int v)
{
    return (uint)clamp(v >> 8, 0, 255);
}

__kernel void nv12_to_rgba_u32(const int width, const int height,
                               __global const uchar *y_plane,
                               __global const uchar *uv_plane,
                               __global uint *rgba)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int c = 298 * ((int)y_plane[y * width + x] - 16) + 128;
    const int uv = (y / 2) * width + (x & ~1);   /* the U byte of this pixel's 2x2 block; V follows */
    const int d = (int)uv_plane[uv] - 128;
    const int e = (int)uv_plane[uv + 1] - 128;

    const uint r = to_byte(c + 409 * e);
    const uint g = to_byte(c - 100 * d - 208 * e);
    const uint b = to_byte(c + 516 * d);
    rgba[y * width + x] = r | (g << 8) | (b << 16) | 0xFF000000u;
}
