/* Monte Carlo collisions of an electron swarm drifting through a neutral gas in a uniform electric field, by the
 * null-collision method, as in a PIC-MCC code's collision step. Velocities are in sqrt(eV) (energy = |v|^2 eV).
 * Each of nstep steps, every electron is accelerated by kick along z, then undergoes a (real or null) collision
 * with the constant probability p_coll = 1 - exp(-nu_max dt). For those, a second draw picks elastic scattering,
 * excitation or ionization with probabilities nu_k(eps) / nu_max (nu_k dt = ndt |v| sigma_k(eps), cross sections
 * linearly interpolated from a table of ne energies spaced de, xs[3 e + k]) or a null event. Real collisions
 * scatter isotropically: elastic ones lose the recoil fraction mfrac, excitation subtracts eps_ex, ionization
 * subtracts eps_iz and keeps half of the rest (the secondary is not followed). Event counts go to
 * counts[k] by atomic_inc. Random numbers come from a per-electron 32-bit PCG state kept in rng. */

static float pcg_uniform(uint *state)
{
    *state = *state * 747796405u + 2891336453u;
    uint w = ((*state >> ((*state >> 28u) + 4u)) ^ *state) * 277803737u;
    w = (w >> 22u) ^ w;
    return (float)(w >> 8) * (1.0f / 16777216.0f);
}

__kernel void mcc_null_collision_swarm_u32(const int np, const int nstep, const int ne, const float de,
                                           const float kick, const float ndt, const float p_coll,
                                           const float nu_max_dt, const float mfrac, const float eps_ex,
                                           const float eps_iz,
                                           __global const float *xs,
                                           __global float *vel,
                                           __global uint *rng,
                                           __global uint *counts)
{
    const int i = get_global_id(0);
    if (i >= np)
        return;

    float vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2];
    uint st = rng[i];
    const float inv_de = 1.0f / de;

    for (int s = 0; s < nstep; s++) {
        vz += kick;
        if (pcg_uniform(&st) >= p_coll)
            continue;

        const float eps = vx * vx + vy * vy + vz * vz;
        const float speed = sqrt(eps);
        float u = eps * inv_de;
        int k = (int)u;
        float t = u - (float)k;
        if (k >= ne - 1) {
            k = ne - 2;
            t = 1.0f;
        }
        __global const float *a = xs + 3 * k;
        const float s_el = a[0] + t * (a[3] - a[0]);
        const float s_ex = a[1] + t * (a[4] - a[1]);
        const float s_iz = a[2] + t * (a[5] - a[2]);

        const float r = pcg_uniform(&st) * nu_max_dt;
        const float c_el = ndt * speed * s_el;
        const float c_ex = c_el + ndt * speed * s_ex;
        const float c_iz = c_ex + ndt * speed * s_iz;
        float enew;
        if (r < c_el) {
            enew = eps * (1.0f - mfrac);
            atomic_inc(&counts[0]);
        } else if (r < c_ex) {
            enew = fmax(eps - eps_ex, 0.0f);
            atomic_inc(&counts[1]);
        } else if (r < c_iz) {
            enew = 0.5f * fmax(eps - eps_iz, 0.0f);
            atomic_inc(&counts[2]);
        } else {
            continue; /* null collision */
        }

        /* isotropic new direction */
        const float mu = 1.0f - 2.0f * pcg_uniform(&st);
        const float phi = 6.2831853f * pcg_uniform(&st);
        const float sn = sqrt(fmax(1.0f - mu * mu, 0.0f));
        const float v = sqrt(enew);
        vx = v * sn * cos(phi);
        vy = v * sn * sin(phi);
        vz = v * mu;
    }

    vel[3 * i] = vx;
    vel[3 * i + 1] = vy;
    vel[3 * i + 2] = vz;
    rng[i] = st;
}
