#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One time step of the intelligent driver model (IDM) on nlane independent ring roads of length ring_len, in
 * double precision. The vehicles of lane l are order[lane_start[l]] .. order[lane_start[l + 1] - 1], sorted by
 * position; the leader of a vehicle is the next one in that order, the last vehicle of a lane following the
 * first around the ring. Each vehicle belongs to a class (car, truck, bus) whose parameters sit in class_par:
 * desired speed v0, time headway T, maximum acceleration a, comfortable deceleration b, jam distance s0 and
 * length. A work-item per rank finds its lane by binary search over lane_start, reads itself and its leader,
 * forms the IDM acceleration a (1 - (v / v0)^delta - (s* / s)^2) with the desired gap
 * s* = s0 + max(0, v T + v dv / (2 sqrt(a b))), and moves ballistically, stopping inside the step rather than
 * reversing. Results are written by vehicle id. */

#define NPAR 6

__kernel void idm_ring_lanes_sorted_fp64(const int nveh, const int nlane, const double ring_len, const double dt,
                                         const double delta,
                                         __global const int *lane_start,
                                         __global const int *order,
                                         __global const int *vclass,
                                         __global const double *class_par,
                                         __global const double *pos,
                                         __global const double *vel,
                                         __global double *pos_out,
                                         __global double *vel_out,
                                         __global double *acc_out)
{
    const int k = get_global_id(0);
    if (k >= nveh)
        return;

    int lo = 0, hi = nlane;   /* lane_start[lo] <= k < lane_start[hi] */
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (lane_start[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    const int first = lane_start[lo];
    const int end = lane_start[lo + 1];

    const int me = order[k];
    int ld;
    double xl;
    if (k + 1 < end) {
        ld = order[k + 1];
        xl = pos[ld];
    } else {
        ld = order[first];
        xl = pos[ld] + ring_len;
    }

    __global const double *p = class_par + NPAR * vclass[me];
    const double v0 = p[0], T = p[1], amax = p[2], bcomf = p[3], s0 = p[4];
    const double len_leader = class_par[NPAR * vclass[ld] + 5];

    const double x = pos[me];
    const double v = vel[me];
    const double gap = fmax(xl - x - len_leader, 0.1);
    const double dv = v - vel[ld];
    const double sstar = s0 + fmax(0.0, v * T + v * dv / (2.0 * sqrt(amax * bcomf)));
    const double ratio = sstar / gap;
    const double acc = amax * (1.0 - pow(v / v0, delta) - ratio * ratio);

    double vn = v + acc * dt;
    double xn;
    if (vn < 0.0) {
        xn = x - v * v / (2.0 * acc);
        vn = 0.0;
    } else {
        xn = x + v * dt + 0.5 * acc * dt * dt;
    }
    if (xn >= ring_len)
        xn -= ring_len;

    pos_out[me] = xn;
    vel_out[me] = vn;
    acc_out[me] = acc;
}
