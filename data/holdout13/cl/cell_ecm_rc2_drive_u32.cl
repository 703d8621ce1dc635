/* Battery pack simulation over a drive cycle: every cell on a second-order Thevenin equivalent circuit (series
 * resistance R0, two RC pairs) with the one-state hysteresis of Plett's enhanced self-correcting model. The pack
 * current profile (amperes per nominal cell, > 0 discharging, < 0 regenerative charging, sampled every dt
 * seconds) is shared; each cell carries share of it, has its own capacity (ampere-seconds) and its parameters
 * from the row of its temperature bin (tbin) in rcpar: R0, R1, tau1, R2, tau2, hysteresis magnitude M and rate
 * gamma. The open-circuit voltage is interpolated in a table of nocv + 1 points over SOC 0 .. 1. A work-item
 * integrates one cell over all nstep samples (coulombic efficiency eta_c when charging, SOC kept in [0, 1], RC
 * pairs updated with their exact zero-order-hold factors) and leaves its state (soc, v1, v2, hyst) updated, its
 * lowest terminal voltage over the cycle in vmin and the terminal voltage of the last sample in vend. */
__kernel void cell_ecm_rc2_drive_u32(const int ncell, const int nstep, const uint nocv, const float dt,
                                     const float eta_c,
                                     __global const float *profile,
                                     __global const float *share,
                                     __global const float *cap_as,
                                     __global const uint *tbin,
                                     __global const float *ocv,
                                     __global const float *rcpar,
                                     __global float *soc,
                                     __global float *v1,
                                     __global float *v2,
                                     __global float *hyst,
                                     __global float *vmin,
                                     __global float *vend)
{
    const int i = get_global_id(0);
    if (i >= ncell)
        return;

    __global const float *par = rcpar + tbin[i] * 7u;
    const float r0 = par[0];
    const float r1 = par[1];
    const float a1 = exp(-dt / par[2]);
    const float r2 = par[3];
    const float a2 = exp(-dt / par[4]);
    const float mh = par[5];
    const float gam = par[6];
    const float sh = share[i];
    const float inv_q = 1.0f / cap_as[i];

    float z = soc[i];
    float u1 = v1[i];
    float u2 = v2[i];
    float h = hyst[i];
    float lo = INFINITY;
    float v = 0.0f;
    for (int t = 0; t < nstep; t++) {
        const float cur = profile[t] * sh;
        const float eff = (cur < 0.0f) ? eta_c : 1.0f;
        const float dz = eff * cur * dt * inv_q;
        const float ah = exp(-fabs(dz) * gam);
        h = ah * h - (1.0f - ah) * sign(cur);
        z = clamp(z - dz, 0.0f, 1.0f);
        u1 = a1 * u1 + r1 * (1.0f - a1) * cur;
        u2 = a2 * u2 + r2 * (1.0f - a2) * cur;

        const float pos = z * (float)nocv;
        uint k = (uint)pos;
        if (k >= nocv)
            k = nocv - 1u;
        const float frac = pos - (float)k;
        const float e0 = ocv[k];
        v = e0 + frac * (ocv[k + 1u] - e0) + mh * h - r0 * cur - u1 - u2;
        lo = fmin(lo, v);
    }
    soc[i] = z;
    v1[i] = u1;
    v2[i] = u2;
    hyst[i] = h;
    vmin[i] = lo;
    vend[i] = v;
}
