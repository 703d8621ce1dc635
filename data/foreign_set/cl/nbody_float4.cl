__kernel void nbody_float4(__global const float4 *a, __global float4 *b, int c, int d, float e)
{
    int f = get_global_id(0);
    if (f >= c) return;
    float4 p = a[f];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < d; j++) {
        float4 q = a[(f / d) * d + j];
        float3 r = q.xyz - p.xyz;
        float s = dot(r, r) + e;
        float t = native_rsqrt(s);
        acc += r * (q.w * t * t * t);
    }
    b[f] = (float4)(p.xyz + acc * 0.01f, p.w);
}
