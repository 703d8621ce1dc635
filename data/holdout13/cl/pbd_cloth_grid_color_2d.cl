/* Position-based dynamics for a rectangular cloth of w x h particles: one Gauss-Seidel pass over one colour of
 * its structural distance constraints. The edges of a grid cloth split into four colours that share no
 * particle: horizontal edges (r, c)-(r, c + 1) with c even (colour 0) or odd (1), vertical edges (r, c)-(r + 1, c)
 * with r even (2) or odd (3), so the solver launches once per colour and needs no atomics. The NDRange is 2-D
 * over (column, row); a horizontal colour uses half the columns, a vertical one half the rows.
 * pos holds xyz and the inverse mass in w (0 for a pinned particle). Each constraint moves its two ends along
 * their difference by the stiffness-scaled violation of its rest length, split by inverse mass. */
__kernel void pbd_cloth_grid_color_2d(const int w, const int h, const int color, const float stiffness,
                                      __global float4 *pos,
                                      __global const float *rest_h,
                                      __global const float *rest_v)
{
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);
    const int parity = color & 1;
    int a, b;
    float rest;

    if (color < 2) {
        const int c = 2 * gx + parity;
        if (c + 1 >= w || gy >= h)
            return;
        a = gy * w + c;
        b = a + 1;
        rest = rest_h[gy * (w - 1) + c];
    } else {
        const int r = 2 * gy + parity;
        if (gx >= w || r + 1 >= h)
            return;
        a = r * w + gx;
        b = a + w;
        rest = rest_v[r * w + gx];
    }

    float4 pa = pos[a];
    float4 pb = pos[b];
    const float wsum = pa.w + pb.w;
    if (wsum <= 0.0f)
        return;                      /* both ends pinned */
    const float3 d = pb.xyz - pa.xyz;
    const float len = length(d);
    if (len < 1.0e-6f)
        return;                      /* degenerate: no direction to push along */
    const float s = stiffness * (len - rest) / (len * wsum);
    pa.xyz += (pa.w * s) * d;
    pb.xyz -= (pb.w * s) * d;
    pos[a] = pa;
    pos[b] = pb;
}
