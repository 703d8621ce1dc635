/* Charged-particle propagation through a tracker in a solenoid, as a fast-simulation or track-seeding code does
 * it: every work-item takes one track from its vertex (0, 0, z0) with q/pT (1/GeV, signed), eta and phi0, and
 * integrates the equation of motion dt/ds = kappa t x B(x), dx/ds = t (unit tangent t, path length s in m,
 * kappa = 0.2998 q / p) by classic fourth-order Runge-Kutta for nstep steps of length h. The field is a map
 * of (Br, Bz) in tesla on an (r, z) grid (nr x nz points, spacing dr and dz, z from -zhalf), read with
 * bilinear interpolation at each of the four stages. After each step the track is tested against the
 * cylindrical barrel layers (radius layer_r, half-length layer_z, at most MAXL): the first crossing of a layer
 * is interpolated linearly between the two points and kept as (phi, z) when it lies within the layer's length.
 * A track stops when it leaves the map. Out: the hits (zero for layers not hit) and a bitmask of hit layers. */
#define MAXL 16
#define C_LIGHT 0.299792458f

float3 field_at(float3 x, __global const float2 *bmap, int nr, int nz, float dr, float dz, float zhalf)
{
    const float r = sqrt(x.x * x.x + x.y * x.y);
    const float fr = fmin(r / dr, (float)(nr - 1) - 1e-3f);
    const float fz = clamp((x.z + zhalf) / dz, 0.0f, (float)(nz - 1) - 1e-3f);
    const int ir = (int)fr, iz = (int)fz;
    const float ar = fr - ir, az = fz - iz;
    const float2 b00 = bmap[iz * nr + ir], b01 = bmap[iz * nr + ir + 1];
    const float2 b10 = bmap[(iz + 1) * nr + ir], b11 = bmap[(iz + 1) * nr + ir + 1];
    const float2 b = (1.0f - az) * ((1.0f - ar) * b00 + ar * b01) + az * ((1.0f - ar) * b10 + ar * b11);
    const float br_over_r = r > 1e-6f ? b.x / r : 0.0f;
    return (float3)(br_over_r * x.x, br_over_r * x.y, b.y);
}

__kernel void helix_rk4_fieldmap_layers(const int ntrk, const int nstep, const float h, const int nlayer,
                                        const int nr, const int nz, const float dr, const float dz,
                                        const float zhalf,
                                        __global const float4 *trk,
                                        __global const float2 *bmap,
                                        __global const float *layer_r,
                                        __global const float *layer_z,
                                        __global float *hits,
                                        __global uint *hit_mask)
{
    const int i = get_global_id(0);
    if (i >= ntrk)
        return;

    const float4 par = trk[i];  /* q/pT, eta, phi0, z0 */
    const float ch = cosh(par.y);
    float3 x = (float3)(0.0f, 0.0f, par.w);
    float3 t = (float3)(cos(par.z) / ch, sin(par.z) / ch, tanh(par.y));
    const float kappa = C_LIGHT * par.x / ch;
    const float rmax = dr * (nr - 1);

    float hp[MAXL], hz[MAXL];
    for (int k = 0; k < nlayer; k++)
        hp[k] = hz[k] = 0.0f;
    uint mask = 0u;
    float r_old = 0.0f;

    for (int s = 0; s < nstep; s++) {
        const float3 k1t = kappa * cross(t, field_at(x, bmap, nr, nz, dr, dz, zhalf));
        const float3 t2 = t + 0.5f * h * k1t;
        const float3 k2t = kappa * cross(t2, field_at(x + 0.5f * h * t, bmap, nr, nz, dr, dz, zhalf));
        const float3 t3 = t + 0.5f * h * k2t;
        const float3 k3t = kappa * cross(t3, field_at(x + 0.5f * h * t2, bmap, nr, nz, dr, dz, zhalf));
        const float3 t4 = t + h * k3t;
        const float3 k4t = kappa * cross(t4, field_at(x + h * t3, bmap, nr, nz, dr, dz, zhalf));
        const float3 x_new = x + (h / 6.0f) * (t + 2.0f * t2 + 2.0f * t3 + t4);
        t = normalize(t + (h / 6.0f) * (k1t + 2.0f * k2t + 2.0f * k3t + k4t));

        const float r_new = sqrt(x_new.x * x_new.x + x_new.y * x_new.y);
        for (int k = 0; k < nlayer; k++) {
            const float rl = layer_r[k];
            if (!(mask & (1u << k)) && r_old < rl && r_new >= rl) {
                const float f = (rl - r_old) / (r_new - r_old);
                const float3 xc = x + f * (x_new - x);
                if (fabs(xc.z) <= layer_z[k]) {
                    hp[k] = atan2(xc.y, xc.x);
                    hz[k] = xc.z;
                    mask |= 1u << k;
                }
            }
        }
        x = x_new;
        r_old = r_new;
        if (r_new >= rmax || fabs(x.z) >= zhalf)
            break;
    }

    for (int k = 0; k < nlayer; k++) {
        hits[((size_t)i * nlayer + k) * 2] = hp[k];
        hits[((size_t)i * nlayer + k) * 2 + 1] = hz[k];
    }
    hit_mask[i] = mask;
}
