// All-pairs N-body acceleration with a helper function; positions are float4 (w = mass).
#define SOFTENING 1e-3f

float3 body_interaction(float4 bi, float4 bj, float3 acc)
{
    float3 r = bj.xyz - bi.xyz;
    float dist_sqr = dot(r, r) + SOFTENING;
    float inv_dist = rsqrt(dist_sqr);
    float inv_dist3 = inv_dist * inv_dist * inv_dist;
    return acc + r * (bj.w * inv_dist3);
}

__kernel void nbody_accel(__global const float4 *pos, __global float4 *accel, const int n)
{
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
    float4 me = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; j++) {
        acc = body_interaction(me, pos[j], acc);
    }
    accel[i] = (float4)(acc, 0.0f);
}
