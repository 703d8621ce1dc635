/* Cross-power spectrum: out = scale * a * conj(b) for complex numbers stored as
 * float2 (re, im). */
float2 cmul_conj(float2 a, float2 b)
{
    return (float2)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

__kernel void complex_conj_mul_float2(const float scale,
                                      __global const float2 *a,
                                      __global const float2 *b,
                                      __global float2 *out)
{
    size_t i = get_global_id(0);
    out[i] = scale * cmul_conj(a[i], b[i]);
}
