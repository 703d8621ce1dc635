#define AMB 80.0f
__kernel void hotspot_stencil(__global const float *a, __global const float *b, __global float *c,
                              int d, int e, float f)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= d || y >= e) return;
    int xm = max(x - 1, 0), xp = min(x + 1, d - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, e - 1);
    float t = a[y * d + x];
    c[y * d + x] = t + f * (b[y * d + x] + a[y * d + xm] + a[y * d + xp] + a[ym * d + x] + a[yp * d + x]
                            - 4.0f * t + (AMB - t) * 0.01f);
}
