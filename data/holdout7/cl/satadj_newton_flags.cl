/* Saturation adjustment of a cloud model's thermodynamic state, one grid cell per work-item.
 * Total water qv + qc is conserved and latent heat moves with the phase change. A cell that is
 * subsaturated and has no cloud water is left alone. Otherwise the temperature at which the vapour is
 * exactly saturated is found by Newton's method on
 *     f(T') = T' - T - (L / cp) * (qv - qs(T', p)),
 * with Bolton's saturation vapour pressure. If the result needs negative cloud water, all of it
 * evaporates instead. flags records per cell: bit 0 supersaturated on entry, bit 1 cloud fully
 * evaporated, bit 2 adjusted at all. */
#define LV 2.501e6f
#define CPD 1004.64f
#define EPS 0.622f

inline float qsat(float t, float p, float *dqs_dt)
{
    const float tc = t - 273.15f;
    const float es = 611.2f * exp(17.67f * tc / (t - 29.65f));
    const float den = p - (1.0f - EPS) * es;
    const float qs = EPS * es / den;
    const float des = es * 17.67f * 243.5f / ((t - 29.65f) * (t - 29.65f));
    *dqs_dt = EPS * des * p / (den * den);
    return qs;
}

__kernel void satadj_newton_flags(const int ncell, const int max_iter, const float tol,
                                  __global const float *pres, __global float *temp,
                                  __global float *qv, __global float *qc, __global uint *flags)
{
    const int i = get_global_id(0);
    if (i >= ncell)
        return;

    const float p = pres[i];
    const float t0 = temp[i];
    const float v0 = qv[i];
    const float c0 = qc[i];
    float dq;
    const float qs0 = qsat(t0, p, &dq);
    uint f = 0u;
    if (v0 > qs0)
        f |= 1u;
    if (v0 <= qs0 && c0 <= 0.0f) {
        flags[i] = f;
        return;
    }
    f |= 4u;

    const float lc = LV / CPD;
    float t = t0;
    for (int it = 0; it < max_iter; it++) {
        const float qs = qsat(t, p, &dq);
        const float fun = t - t0 - lc * (v0 - qs);
        const float step = fun / (1.0f + lc * dq);
        t -= step;
        if (fabs(step) < tol)
            break;
    }
    float dqs;
    const float qs = qsat(t, p, &dqs);
    const float qt = v0 + c0;
    float cnew = qt - qs;
    if (cnew < 0.0f) {
        t = t0 - lc * c0;
        cnew = 0.0f;
        f |= 2u;
    }
    temp[i] = t;
    qv[i] = qt - cnew;
    qc[i] = cnew;
    flags[i] = f;
}
