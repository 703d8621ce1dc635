#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Analog Monte Carlo of neutrons in a 1-D multi-region slab (one speed), history-based: one history per
 * work-item. A neutron enters at x = 0 along the normal; region r spans bnd[r] .. bnd[r + 1] with total cross
 * section sig_t[r] (1/cm) and scattering ratio c_scat[r]. Each flight samples an optical depth, moves through
 * the regions it crosses (surface tracking) and either escapes (reflected at x < 0, transmitted at x > L) or
 * collides; a collision scatters isotropically with probability c_scat, else the neutron is absorbed. The
 * random numbers come from Philox4x32-10 keyed by the run's seed, the counter being (history, flight): one
 * call gives the flight's three draws. Tallies, all by integer atomics so that they do not depend on the order
 * of the work-items: the track length in each of nbin equal spatial bins in fixed point (fx_scale units per
 * cm, rounded per piece, wrapping modulo 2^32), scatters and absorptions per region, and the reflected,
 * transmitted and cut (max_flight reached) histories. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define TWO_M32 2.3283064365386963e-10

uint4 philox4x32_10(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; r++) {
        const uint hi0 = mul_hi(PHILOX_M0, c.x);
        const uint lo0 = PHILOX_M0 * c.x;
        const uint hi1 = mul_hi(PHILOX_M1, c.z);
        const uint lo1 = PHILOX_M1 * c.z;
        c = (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k.x += PHILOX_W0;
        k.y += PHILOX_W1;
    }
    return c;
}

double u01(uint r)
{
    return ((double)r + 0.5) * TWO_M32;
}

void tally_track(__global uint *track_fx, double xa, double xb, double inv_mu, double bin_w, int nbin,
                 double fx_scale)
{
    const double lo = fmin(xa, xb), hi = fmax(xa, xb);
    const int b0 = max((int)(lo / bin_w), 0);
    const int b1 = min((int)(hi / bin_w), nbin - 1);
    for (int b = b0; b <= b1; b++) {
        const double piece = fmin(hi, (b + 1) * bin_w) - fmax(lo, b * bin_w);
        if (piece > 0.0)
            atomic_add(&track_fx[b], (uint)(piece * inv_mu * fx_scale + 0.5));
    }
}

__kernel void slab_walk_philox_fixed(const int nhist, const int nreg, const int nbin, const int max_flight,
                                     const uint seed_lo, const uint seed_hi, const double fx_scale,
                                     __global const double *bnd,
                                     __global const double *sig_t,
                                     __global const double *c_scat,
                                     __global uint *track_fx,
                                     __global uint *events,
                                     __global uint *leak)
{
    const int h = get_global_id(0);
    if (h >= nhist)
        return;

    const double width = bnd[nreg];
    const double bin_w = width / nbin;
    const uint2 key = (uint2)(seed_lo, seed_hi);
    double x = 0.0, mu = 1.0;
    int reg = 0;
    int fate = 2;

    for (int flight = 0; flight < max_flight; flight++) {
        const uint4 r = philox4x32_10((uint4)((uint)h, (uint)flight, 0u, 0u), key);
        double tau = -log(u01(r.x));
        const double inv_mu = 1.0 / fabs(mu);

        /* cross regions until the optical depth is spent or the neutron leaves */
        int collided = 0;
        while (1) {
            const double edge = mu > 0.0 ? bnd[reg + 1] : bnd[reg];
            const double to_edge = (edge - x) / mu;
            const double st = sig_t[reg];
            if (tau < st * to_edge) {
                const double xn = x + mu * tau / st;
                tally_track(track_fx, x, xn, inv_mu, bin_w, nbin, fx_scale);
                x = xn;
                collided = 1;
                break;
            }
            tally_track(track_fx, x, edge, inv_mu, bin_w, nbin, fx_scale);
            tau -= st * to_edge;
            x = edge;
            reg += mu > 0.0 ? 1 : -1;
            if (reg < 0 || reg >= nreg)
                break;
        }
        if (!collided) {
            fate = reg < 0 ? 0 : 1;
            break;
        }
        if (u01(r.y) < c_scat[reg]) {
            atomic_inc(&events[2 * reg]);
            mu = 2.0 * u01(r.z) - 1.0;
        } else {
            atomic_inc(&events[2 * reg + 1]);
            fate = 3;
            break;
        }
    }
    if (fate < 3)
        atomic_inc(&leak[fate]);
}
