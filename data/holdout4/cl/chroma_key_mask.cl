/* Green-screen keying: the chroma (Cb, Cr, BT.601) of every RGBA8 pixel is compared with the key
 * colour's. Closer than `inner` is background (alpha 0), farther than `outer` foreground (alpha 1),
 * a smoothstep in between; the result is multiplied by the pixel's own alpha. Fully keyed pixels
 * are also counted, for the application's statistics. */
float2 chroma(float4 p)
{
    return (float2)(-0.168736f * p.x - 0.331264f * p.y + 0.5f * p.z,
                    0.5f * p.x - 0.418688f * p.y - 0.081312f * p.z);
}

__kernel void chroma_key_mask(const int npixels, const float key_cb, const float key_cr,
                              const float inner, const float outer,
                              __global const uchar4 *rgba,
                              __global float *alpha,
                              __global uint *keyed)
{
    const int i = get_global_id(0);
    if (i >= npixels)
        return;

    const float4 p = convert_float4(rgba[i]) * (1.0f / 255.0f);
    const float dist = length(chroma(p) - (float2)(key_cb, key_cr));

    float a;
    if (dist <= inner) {
        a = 0.0f;
        atomic_inc(keyed);
    } else if (dist >= outer) {
        a = 1.0f;
    } else {
        a = smoothstep(inner, outer, dist);
    }
    alpha[i] = a * p.w;
}
