/* Motion compensation (deskewing) of lidar points taken while the vehicle moved. Every point carries its firing
 * time in microseconds; the IMU / odometry filter gives the sensor's pose at sorted stamps pose_t_us (orientation
 * as a unit quaternion w, x, y, z and a position), covering the sweep. A work-item finds the two poses around its
 * point's time by a binary search (times outside the stamps clamp to the first or last pose), interpolates the
 * pose (slerp of the quaternions, flipped onto the same hemisphere, normalised lerp when they are nearly equal;
 * linear in position), moves the point into the odometry frame and from there into the frame of the last pose,
 * the scan's end. A point at the origin marks a beam without a return and stays there. */
#define SLERP_NLERP_DOT 0.9995f

float3 quat_rotate(const float4 q, const float3 v)
{
    /* q = (w, x, y, z) in (s0, s1, s2, s3): v + 2 w (u x v) + 2 u x (u x v), u the vector part */
    const float3 u = (float3)(q.s1, q.s2, q.s3);
    const float3 t = 2.0f * cross(u, v);
    return v + q.s0 * t + cross(u, t);
}

__kernel void deskew_slerp_imu_poses(const int npts, const int npose,
                                     __global const float *pts,
                                     __global const uint *t_us,
                                     __global const uint *pose_t_us,
                                     __global const float *pose_q,
                                     __global const float *pose_p,
                                     __global float *out_xyz)
{
    const int i = get_global_id(0);
    if (i >= npts)
        return;

    const float3 v = vload3(i, pts);
    if (v.x == 0.0f && v.y == 0.0f && v.z == 0.0f) {
        vstore3(v, i, out_xyz);
        return;
    }

    const uint t = t_us[i];
    int lo = 0, hi = npose - 1; /* pose_t_us[lo] <= t < pose_t_us[hi], or the clamped end */
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (pose_t_us[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    const uint t0 = pose_t_us[lo], t1 = pose_t_us[hi];
    float a = (t <= t0) ? 0.0f : ((t >= t1) ? 1.0f : (float)(t - t0) / (float)(t1 - t0));

    const float4 q0 = vload4(lo, pose_q);
    float4 q1 = vload4(hi, pose_q);
    float d = dot(q0, q1);
    if (d < 0.0f) {
        q1 = -q1;
        d = -d;
    }
    float4 q;
    if (d > SLERP_NLERP_DOT) {
        q = q0 + a * (q1 - q0);
    } else {
        const float th = acos(d);
        const float sn = sin(th);
        q = (sin((1.0f - a) * th) / sn) * q0 + (sin(a * th) / sn) * q1;
    }
    q = normalize(q);
    const float3 p = vload3(lo, pose_p) + a * (vload3(hi, pose_p) - vload3(lo, pose_p));

    const float4 qe = vload4(npose - 1, pose_q);
    const float3 pe = vload3(npose - 1, pose_p);
    const float3 w = quat_rotate(q, v) + (p - pe); /* the odometry frame, origin moved to the end pose */
    const float4 qe_inv = (float4)(qe.s0, -qe.s1, -qe.s2, -qe.s3);
    vstore3(quat_rotate(qe_inv, w), i, out_xyz);
}
