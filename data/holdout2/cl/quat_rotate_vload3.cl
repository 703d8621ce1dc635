/* Rotate packed xyz points (three floats each, vload3/vstore3) by the unit quaternion of the rigid
 * body they belong to: v' = v + w t + u x t with t = 2 u x v, where q = (u, w). */
__kernel void quat_rotate_vload3(const int npoints,
                                 __global const float *pts,
                                 __global const int *body_of,
                                 __global const float4 *quats,
                                 __global float *out)
{
    const int i = get_global_id(0);
    if (i >= npoints)
        return;

    const float3 v = vload3(i, pts);
    const float4 q = quats[body_of[i]];
    const float3 u = q.xyz;
    const float3 t = 2.0f * cross(u, v);
    const float3 r = v + q.w * t + cross(u, t);
    vstore3(r, i, out);
}
