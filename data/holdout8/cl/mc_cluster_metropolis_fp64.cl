#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Metropolis Monte Carlo of Lennard-Jones clusters (reduced units), one walker per work-item: each walker
 * is an independent cluster of natom atoms (xyz interleaved, walkers one after another) held inside a
 * spherical wall of radius r_wall, at its own temperature. A trial move displaces one random atom by up
 * to +-step along each axis; moves through the wall are rejected, the others accepted with probability
 * min(1, exp(-dE / T)), dE summed over the moved atom's pairs. Random numbers: a per-walker LCG whose
 * states go through a murmur3 finaliser, five per trial. Positions are updated in place; the walker's
 * final energy and accepted-move count are written. */
uint fmix32(uint h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}

uint next_rand(uint *state)
{
    *state = *state * 1664525U + 1013904223U;
    return fmix32(*state);
}

double lj(const double r2)
{
    const double s6 = 1.0 / (r2 * r2 * r2);
    return 4.0 * (s6 * s6 - s6);
}

__kernel void mc_cluster_metropolis_fp64(const int nwalk, const int natom, const int nstep, const uint seed,
                                         const double step, const double r_wall,
                                         __global const double *temperature,
                                         __global double *pos,
                                         __global double *energy,
                                         __global int *accepted)
{
    const int w = get_global_id(0);
    if (w >= nwalk)
        return;

    __global double *p = pos + (size_t)w * natom * 3;
    const double beta = 1.0 / temperature[w];
    const double wall2 = r_wall * r_wall;
    const double to_unit = 1.0 / 4294967296.0;
    uint state = fmix32(seed ^ fmix32((uint)w * 0x9e3779b9U + 1U));

    double e = 0.0;
    for (int a = 0; a < natom; a++)
        for (int b = a + 1; b < natom; b++) {
            const double dx = p[3 * a] - p[3 * b];
            const double dy = p[3 * a + 1] - p[3 * b + 1];
            const double dz = p[3 * a + 2] - p[3 * b + 2];
            e += lj(dx * dx + dy * dy + dz * dz);
        }

    int acc = 0;
    for (int s = 0; s < nstep; s++) {
        const int k = (int)(next_rand(&state) % (uint)natom);
        const double mx = step * (2.0 * next_rand(&state) * to_unit - 1.0);
        const double my = step * (2.0 * next_rand(&state) * to_unit - 1.0);
        const double mz = step * (2.0 * next_rand(&state) * to_unit - 1.0);
        const double u = next_rand(&state) * to_unit;

        const double ox = p[3 * k], oy = p[3 * k + 1], oz = p[3 * k + 2];
        const double nx = ox + mx, ny = oy + my, nz = oz + mz;
        if (nx * nx + ny * ny + nz * nz > wall2)
            continue;

        double de = 0.0;
        for (int j = 0; j < natom; j++) {
            if (j == k)
                continue;
            const double xj = p[3 * j], yj = p[3 * j + 1], zj = p[3 * j + 2];
            const double r2n = (nx - xj) * (nx - xj) + (ny - yj) * (ny - yj) + (nz - zj) * (nz - zj);
            const double r2o = (ox - xj) * (ox - xj) + (oy - yj) * (oy - yj) + (oz - zj) * (oz - zj);
            de += lj(r2n) - lj(r2o);
        }
        if (de <= 0.0 || u < exp(-beta * de)) {
            p[3 * k] = nx;
            p[3 * k + 1] = ny;
            p[3 * k + 2] = nz;
            e += de;
            acc++;
        }
    }
    energy[w] = e;
    accepted[w] = acc;
}
