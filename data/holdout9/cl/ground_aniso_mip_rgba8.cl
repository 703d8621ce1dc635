/* Software texturing of an infinite ground plane (y = 0) seen by a perspective camera, one pixel per work-item
 * on a 2-D NDRange. cam holds the eye position, then the right, up and forward axes. The pixel's ray hits the
 * ground at distance t; the uv derivatives along x and y come from differentiating the hit point with respect
 * to the pixel coordinates, so no neighbour is needed. The texture is an RGBA8 mip chain packed one texel per
 * uint (level l is (tex_size >> l)^2 texels from level_off[l]), addressed with wrap-around. Anisotropic
 * filtering as the hardware does it: N = min(ceil(major / minor), max_aniso) trilinear probes spread along the
 * major axis of the footprint, at the level of detail log2(major / N). Exponential fog blends towards the
 * horizon colour; rays at or above the horizon get a sky gradient. Output: RGBA as four floats. */
#define HORIZON_EPS 1e-3f

float4 texel(__global const uint *mips, const int off, const int size, const int ix, const int iy)
{
    const uint c = mips[off + (iy & (size - 1)) * size + (ix & (size - 1))];
    return (float4)((float)(c & 0xffu), (float)((c >> 8) & 0xffu), (float)((c >> 16) & 0xffu), (float)(c >> 24))
           * (1.0f / 255.0f);
}

float4 bilinear(__global const uint *mips, __global const int *level_off, const int tex_size, const int level,
                const float2 uv)
{
    const int size = tex_size >> level;
    const float2 f = (uv - floor(uv)) * (float)size - 0.5f;
    const float2 f0 = floor(f);
    const float2 w = f - f0;
    const int ix = (int)f0.x, iy = (int)f0.y;
    const int off = level_off[level];
    const float4 a = mix(texel(mips, off, size, ix, iy), texel(mips, off, size, ix + 1, iy), w.x);
    const float4 b = mix(texel(mips, off, size, ix, iy + 1), texel(mips, off, size, ix + 1, iy + 1), w.x);
    return mix(a, b, w.y);
}

__kernel void ground_aniso_mip_rgba8(const int width, const int height, const int tex_size, const int nlevels,
                                     const int max_aniso, const float focal, const float uv_scale,
                                     const float fog_density,
                                     __global const float *cam,
                                     __global const uint *mips,
                                     __global const int *level_off,
                                     __global float *rgba)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const float3 eye = (float3)(cam[0], cam[1], cam[2]);
    const float3 right = (float3)(cam[3], cam[4], cam[5]);
    const float3 up = (float3)(cam[6], cam[7], cam[8]);
    const float3 fwd = (float3)(cam[9], cam[10], cam[11]);
    const float4 fog = (float4)(0.70f, 0.76f, 0.84f, 1.0f);
    const float4 zenith = (float4)(0.25f, 0.42f, 0.78f, 1.0f);

    const float sx = ((float)x + 0.5f - 0.5f * (float)width) / focal;
    const float sy = (0.5f * (float)height - ((float)y + 0.5f)) / focal;
    const float3 d = fwd + sx * right + sy * up;
    const float len = length(d);
    const int o = 4 * (y * width + x);
    float4 c;

    if (d.y / len > -HORIZON_EPS) {
        c = mix(fog, zenith, fmax(d.y / len, 0.0f));
    } else {
        const float t = eye.y / -d.y;
        const float3 p = eye + t * d;
        const float2 uv = (float2)(p.x, p.z) * uv_scale;
        /* d(hit)/d(pixel): t / focal * (axis + axis.y / -d.y * d); pixel y runs against up */
        const float3 dpx = (t / focal) * (right + (right.y / -d.y) * d);
        const float3 dpy = (-t / focal) * (up + (up.y / -d.y) * d);
        const float2 duvx = (float2)(dpx.x, dpx.z) * uv_scale;
        const float2 duvy = (float2)(dpy.x, dpy.z) * uv_scale;
        const float lx = length(duvx) * (float)tex_size;
        const float ly = length(duvy) * (float)tex_size;
        const float pmax = fmax(lx, ly);
        const float pmin = fmax(fmin(lx, ly), 1e-8f);
        const float2 axis = (lx >= ly) ? duvx : duvy;
        const int n = min((int)ceil(pmax / pmin), max_aniso);
        const float lod = clamp(log2(pmax / (float)n), 0.0f, (float)(nlevels - 1));
        const int l0 = (int)lod;
        const float fl = lod - (float)l0;

        float4 acc = (float4)(0.0f);
        for (int i = 0; i < n; i++) {
            const float2 q = uv + (((float)i + 0.5f) / (float)n - 0.5f) * axis;
            float4 s = bilinear(mips, level_off, tex_size, l0, q);
            if (l0 + 1 < nlevels)
                s = mix(s, bilinear(mips, level_off, tex_size, l0 + 1, q), fl);
            acc += s;
        }
        acc /= (float)n;
        c = mix(fog, acc, exp(-fog_density * t * len));
    }
    rgba[o] = c.x;
    rgba[o + 1] = c.y;
    rgba[o + 2] = c.z;
    rgba[o + 3] = c.w;
}
