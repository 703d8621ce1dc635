/* Model predictive path integral (MPPI) control: cost of one sampled control sequence per work-item.
 * A kinematic bicycle (rear-axle x, y, yaw, speed v) starts from state0 and follows the nominal controls
 * (acceleration, steering angle) plus this sample's noise, clipped to the actuator limits, for horizon steps
 * of dt. Each step adds the map cost under the rear and the front axle (bilinear in an inflated obstacle
 * cost map; off the map counts as lethal), a speed-tracking term and the MPPI control term
 * temperature * u^T Sigma^-1 eps. A step that touches a lethal cost ends the rollout with a crash penalty
 * for every remaining step; survivors pay the squared distance to the goal at the end.
 * Out: the sample's total cost and the step it crashed at (horizon if it did not). */
float map_cost(__global const float *costmap, const int map_w, const int map_h, const float inv_res,
               const float wx, const float wy, const float lethal)
{
    const float gx = wx * inv_res - 0.5f;
    const float gy = wy * inv_res - 0.5f;
    if (!(gx >= 0.0f && gy >= 0.0f && gx < (float)(map_w - 1) && gy < (float)(map_h - 1)))
        return lethal;
    const int cx = (int)gx;
    const int cy = (int)gy;
    const float fx = gx - (float)cx;
    const float fy = gy - (float)cy;
    const int k = cy * map_w + cx;
    const float top = mix(costmap[k], costmap[k + 1], fx);
    const float bot = mix(costmap[k + map_w], costmap[k + map_w + 1], fx);
    return mix(top, bot, fy);
}

__kernel void mppi_bicycle_rollout(const int nsamples, const int horizon, const float dt, const float wheelbase,
                                   const float v_max, const float accel_max, const float steer_max,
                                   const float v_ref, const float goal_x, const float goal_y,
                                   const float temperature, const float inv_var_a, const float inv_var_s,
                                   const float w_speed, const float w_goal, const float lethal,
                                   const float crash_cost,
                                   const int map_w, const int map_h, const float resolution,
                                   __constant float *state0,
                                   __constant float *u_nom,
                                   __global const float *noise,
                                   __global const float *costmap,
                                   __global float *cost_out,
                                   __global int *crash_step)
{
    const int k = get_global_id(0);
    if (k >= nsamples)
        return;

    const float inv_res = 1.0f / resolution;
    float x = state0[0], y = state0[1], yaw = state0[2], v = state0[3];
    __global const float *eps = noise + (size_t)k * horizon * 2;

    float cost = 0.0f;
    int crash = horizon;
    for (int t = 0; t < horizon; t++) {
        const float ua = u_nom[2 * t], us = u_nom[2 * t + 1];
        const float ea = eps[2 * t], es = eps[2 * t + 1];
        const float acc = clamp(ua + ea, -accel_max, accel_max);
        const float steer = clamp(us + es, -steer_max, steer_max);
        cost += temperature * (ua * ea * inv_var_a + us * es * inv_var_s);

        const float c = cos(yaw), s = sin(yaw);
        x += v * c * dt;
        y += v * s * dt;
        yaw += v * tan(steer) / wheelbase * dt;
        v = clamp(v + acc * dt, 0.0f, v_max);

        const float rear = map_cost(costmap, map_w, map_h, inv_res, x, y, lethal);
        const float front = map_cost(costmap, map_w, map_h, inv_res, x + wheelbase * cos(yaw),
                                     y + wheelbase * sin(yaw), lethal);
        const float mc = fmax(rear, front);
        if (mc >= lethal) {
            cost += crash_cost * (float)(horizon - t);
            crash = t;
            break;
        }
        cost += mc + w_speed * (v - v_ref) * (v - v_ref);
    }
    if (crash == horizon)
        cost += w_goal * ((x - goal_x) * (x - goal_x) + (y - goal_y) * (y - goal_y));
    cost_out[k] = cost;
    crash_step[k] = crash;
}
