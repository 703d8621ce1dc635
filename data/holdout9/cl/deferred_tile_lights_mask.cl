/* Tiled deferred shading of a G-buffer with many point lights, one pixel per work-item on a 2-D NDRange, a
 * work-group per screen tile. The G-buffer holds linear view-space depth (0 where nothing was drawn), the
 * view-space normal octahedron-encoded in two 16-bit unorms of a uint, and the albedo as RGBA8 in a uint whose
 * alpha is the gloss. The group first finds its tile's depth bounds with local atomic_min / atomic_max on the
 * depth bits (positive floats order like their bit patterns), then walks the lights CHUNK at a time: each light
 * of the chunk is staged in __local and tested against the tile's view-space box (sphere vs. box), and the
 * survivors set their bit in a __local mask with atomic_or. Every pixel then shades with the lights whose bit
 * is set, in light order: Lambert plus normalised Blinn-Phong, inverse-square falloff windowed to zero at the
 * light's radius. Empty tiles write black and leave early. */
#define CHUNK 256
#define MASK_WORDS (CHUNK / 32)

float3 oct_decode(const uint packed)
{
    const float fx = (float)(packed & 0xffffu) * (2.0f / 65535.0f) - 1.0f;
    const float fy = (float)(packed >> 16) * (2.0f / 65535.0f) - 1.0f;
    float3 n = (float3)(fx, fy, 1.0f - fabs(fx) - fabs(fy));
    const float t = fmax(-n.z, 0.0f);
    n.x += (n.x >= 0.0f) ? -t : t;
    n.y += (n.y >= 0.0f) ? -t : t;
    return normalize(n);
}

__kernel void deferred_tile_lights_mask(const int width, const int height, const int nlights,
                                        const float fx, const float fy, const float cx, const float cy,
                                        __global const float *depth,
                                        __global const uint *gnormal,
                                        __global const uint *galbedo,
                                        __global const float4 *light_pos,
                                        __global const float4 *light_col,
                                        __global float *hdr)
{
    __local uint tile_zmin, tile_zmax;
    __local uint mask[MASK_WORDS];
    __local float4 lpos[CHUNK];
    __local float4 lcol[CHUNK];

    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int lsz = get_local_size(0) * get_local_size(1);
    const int inside = (x < width && y < height);

    if (lid == 0) {
        tile_zmin = 0x7f7fffffu;   /* FLT_MAX */
        tile_zmax = 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float z = 0.0f;
    if (inside) {
        z = depth[y * width + x];
        if (z > 0.0f) {
            atomic_min(&tile_zmin, as_uint(z));
            atomic_max(&tile_zmax, as_uint(z));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const float zmin = as_float(tile_zmin);
    const float zmax = as_float(tile_zmax);
    if (tile_zmax == 0u) {   /* the whole tile is background */
        if (inside) {
            const int o = 3 * (y * width + x);
            hdr[o] = 0.0f;
            hdr[o + 1] = 0.0f;
            hdr[o + 2] = 0.0f;
        }
        return;
    }

    /* the tile's view-space box: pixel edges x0 .. x1, y0 .. y1 swept over zmin .. zmax */
    const float x0 = (float)(get_group_id(0) * get_local_size(0));
    const float x1 = fmin(x0 + (float)get_local_size(0), (float)width);
    const float y0 = (float)(get_group_id(1) * get_local_size(1));
    const float y1 = fmin(y0 + (float)get_local_size(1), (float)height);
    const float ax0 = (x0 - cx) / fx, ax1 = (x1 - cx) / fx;
    const float ay0 = (y0 - cy) / fy, ay1 = (y1 - cy) / fy;
    const float3 bmin = (float3)(fmin(ax0 * zmin, ax0 * zmax), fmin(ay0 * zmin, ay0 * zmax), zmin);
    const float3 bmax = (float3)(fmax(ax1 * zmin, ax1 * zmax), fmax(ay1 * zmin, ay1 * zmax), zmax);

    /* this pixel's surface */
    float3 p = (float3)(0.0f), n = (float3)(0.0f, 0.0f, -1.0f), v = (float3)(0.0f, 0.0f, -1.0f);
    float3 albedo = (float3)(0.0f);
    float shininess = 1.0f;
    if (inside && z > 0.0f) {
        p = (float3)(((float)x + 0.5f - cx) / fx * z, ((float)y + 0.5f - cy) / fy * z, z);
        v = -normalize(p);
        n = oct_decode(gnormal[y * width + x]);
        const uint a = galbedo[y * width + x];
        albedo = (float3)((float)(a & 0xffu), (float)((a >> 8) & 0xffu), (float)((a >> 16) & 0xffu)) * (1.0f / 255.0f);
        shininess = exp2(1.0f + 10.0f * (float)(a >> 24) * (1.0f / 255.0f));
    }
    const float spec_norm = (shininess + 8.0f) * (1.0f / (8.0f * M_PI_F));
    float3 acc = (float3)(0.0f);

    for (int base = 0; base < nlights; base += CHUNK) {
        const int count = min(CHUNK, nlights - base);
        if (lid < MASK_WORDS)
            mask[lid] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < count; j += lsz) {
            const float4 lp = light_pos[base + j];
            lpos[j] = lp;
            lcol[j] = light_col[base + j];
            const float3 c = lp.xyz;
            const float3 q = clamp(c, bmin, bmax);
            const float3 d = c - q;
            if (dot(d, d) <= lp.w * lp.w)
                atomic_or(&mask[j >> 5], 1u << (j & 31));
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (inside && z > 0.0f) {
            for (int w = 0; w < MASK_WORDS; w++) {
                uint bits = mask[w];
                while (bits != 0u) {
                    const uint low = bits & (0u - bits);
                    const int j = w * 32 + (31 - (int)clz(low));
                    bits ^= low;
                    const float4 lp = lpos[j];
                    const float3 lv = lp.xyz - p;
                    const float d2 = dot(lv, lv);
                    const float r2 = lp.w * lp.w;
                    if (d2 >= r2)
                        continue;
                    const float3 l = lv * rsqrt(d2);
                    const float ndl = dot(n, l);
                    if (ndl <= 0.0f)
                        continue;
                    float win = 1.0f - (d2 / r2) * (d2 / r2);
                    win = win * win;
                    const float falloff = win / (d2 + 1.0f);
                    const float3 h = normalize(l + v);
                    const float spec = spec_norm * pow(fmax(dot(n, h), 0.0f), shininess);
                    const float4 lc = lcol[j];
                    acc += lc.xyz * (lc.w * falloff * ndl) * (albedo + (float3)(0.04f * spec));
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (inside) {
        const int o = 3 * (y * width + x);
        hdr[o] = acc.x;
        hdr[o + 1] = acc.y;
        hdr[o + 2] = acc.z;
    }
}
