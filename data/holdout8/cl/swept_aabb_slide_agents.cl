/* Character controller "collide and slide" for many game agents against the static level boxes.
 * One agent per work-item. The agent is an axis-aligned box (centre pos, half extents ext) that wants to
 * move by disp this frame. Each bump sweeps it along the remaining motion against every level box: the
 * level box grown by the agent's half extents (Minkowski sum) is intersected with the motion segment by
 * the slab method, and the earliest entry time wins. The agent moves up to the contact, backs off the hit
 * face by skin, drops the motion's component along the face normal and slides on with what is left, for
 * at most max_bumps bumps. Boxes the agent already overlaps at the start of a bump are ignored (the game
 * pushes those out elsewhere). Out: the final centre, the first box hit (-1 for none) and the bumps used. */
#define FAR 1.0e30f

__kernel void swept_aabb_slide_agents(const int nagents, const int nboxes, const int max_bumps, const float skin,
                                      __global const float *pos,
                                      __global const float *ext,
                                      __global const float *disp,
                                      __global const float *box_min,
                                      __global const float *box_max,
                                      __global float *pos_out,
                                      __global int *first_hit,
                                      __global int *bumps)
{
    const int i = get_global_id(0);
    if (i >= nagents)
        return;

    float p[3], m[3], e[3];
    for (int k = 0; k < 3; k++) {
        p[k] = pos[3 * i + k];
        m[k] = disp[3 * i + k];
        e[k] = ext[3 * i + k];
    }

    int first = -1;
    int nb = 0;
    while (nb < max_bumps) {
        if (m[0] * m[0] + m[1] * m[1] + m[2] * m[2] < 1.0e-12f)
            break;

        float t_hit = 1.0f;
        int hit = -1;
        int hit_axis = 0;
        for (int j = 0; j < nboxes; j++) {
            float t_in = -FAR, t_out = FAR;
            int axis = 0;
            int miss = 0;
            for (int k = 0; k < 3; k++) {
                const float lo = box_min[3 * j + k] - e[k];
                const float hi = box_max[3 * j + k] + e[k];
                if (fabs(m[k]) < 1.0e-8f) {
                    if (p[k] <= lo || p[k] >= hi) {
                        miss = 1;
                        break;
                    }
                } else {
                    const float inv = 1.0f / m[k];
                    float t0 = (lo - p[k]) * inv;
                    float t1 = (hi - p[k]) * inv;
                    if (t0 > t1) {
                        const float tmp = t0;
                        t0 = t1;
                        t1 = tmp;
                    }
                    if (t0 > t_in) {
                        t_in = t0;
                        axis = k;
                    }
                    t_out = fmin(t_out, t1);
                    if (t_in >= t_out) {
                        miss = 1;
                        break;
                    }
                }
            }
            if (!miss && t_in >= 0.0f && t_in < t_hit) {
                t_hit = t_in;
                hit = j;
                hit_axis = axis;
            }
        }

        for (int k = 0; k < 3; k++)
            p[k] += m[k] * t_hit;
        nb++;
        if (hit < 0)
            break;
        if (first < 0)
            first = hit;
        /* back off the face and slide: the rest of the motion without its normal component */
        p[hit_axis] -= m[hit_axis] > 0.0f ? skin : -skin;
        for (int k = 0; k < 3; k++)
            m[k] *= 1.0f - t_hit;
        m[hit_axis] = 0.0f;
    }

    for (int k = 0; k < 3; k++)
        pos_out[3 * i + k] = p[k];
    first_hit[i] = first;
    bumps[i] = nb;
}
