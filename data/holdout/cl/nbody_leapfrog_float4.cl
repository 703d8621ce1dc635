/* One leapfrog step of an all-pairs gravitational n-body system.
 * Positions are float4 (xyz, w = mass), velocities float4 (w unused).
 * Softened acceleration with rsqrt, then kick (v += a dt) and drift (x += v dt). */
__kernel void nbody_leapfrog_float4(const int n, const float dt, const float eps2,
                                    __global const float4 *pos,
                                    __global const float4 *vel,
                                    __global float4 *pos_out,
                                    __global float4 *vel_out)
{
    const int i = get_global_id(0);
    const float4 pi = pos[i];
    float4 acc = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; ++j) {
        const float4 pj = pos[j];
        float4 d = pj - pi;
        d.w = 0.0f;
        const float r2 = dot(d, d) + eps2;
        const float inv = rsqrt(r2);
        acc += d * (pj.w * inv * inv * inv);
    }
    float4 v = vel[i] + acc * dt;
    v.w = 0.0f;
    float4 p = pi + v * dt;
    p.w = pi.w;
    vel_out[i] = v;
    pos_out[i] = p;
}
