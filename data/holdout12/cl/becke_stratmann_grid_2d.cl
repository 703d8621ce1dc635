/* Molecular integration grid for DFT: atom-centred spherical grids with Becke's fuzzy-cell partition in
 * Stratmann's form. 2-D NDRange: x = angular point, y = radial shell of an atom (atom * nrad + shell).
 * The radial nodes and weights are tabulated once for a unit radius (rad_t, rad_u) and scaled by each atom's
 * radius rm (r = rm t, weight rm^3 u); the angular points are unit vectors with weights summing to 4 pi.
 * The work-group first stages the atom positions and the inverse inter-atomic distances in __local memory.
 * Partition of a point P owned by atom A:
 *     w(A) = p(A) / sum_B p(B),   p(B) = prod over C != B of s(mu_BC),   mu_BC = (|P - R_B| - |P - R_C|) / R_BC
 * with s = (1 - g) / 2 and Stratmann's g: -1 below -a, 1 above a and a degree-7 polynomial between, so a cell
 * product is often exactly zero and its loop stops there. Points closer to their own atom than (1 - a) / 2 of
 * its nearest-neighbour distance keep weight 1 without the sums. Writes each point and its total weight. */
#define MAX_ATOMS 64
#define STRAT_A 0.64f

float cell_product(const int b, const int natom, const float *dist, __local const float *rinv)
{
    float p = 1.0f;
    for (int c = 0; c < natom; c++) {
        if (c == b)
            continue;
        const float mu = (dist[b] - dist[c]) * rinv[b * natom + c];
        if (mu >= STRAT_A)
            return 0.0f;
        if (mu > -STRAT_A) {
            const float x = mu * (1.0f / STRAT_A);
            const float x2 = x * x;
            const float g = x * (35.0f - x2 * (35.0f - x2 * (21.0f - 5.0f * x2))) * 0.0625f;
            p *= 0.5f * (1.0f - g);
        }
    }
    return p;
}

__kernel void becke_stratmann_grid_2d(const int natom, const int nrad, const int nang,
                                      __global const float *atom_xyz,
                                      __global const float *atom_rm,
                                      __global const float *rad_t,
                                      __global const float *rad_u,
                                      __global const float *ang_xyz,
                                      __global const float *ang_w,
                                      __global float *points,
                                      __global float *weights,
                                      __local float *lxyz,
                                      __local float *lrinv)
{
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int lsz = get_local_size(0) * get_local_size(1);

    for (int e = lid; e < 3 * natom; e += lsz)
        lxyz[e] = atom_xyz[e];
    for (int e = lid; e < natom * natom; e += lsz) {
        const int b = e / natom, c = e % natom;
        const float dx = atom_xyz[3 * b] - atom_xyz[3 * c];
        const float dy = atom_xyz[3 * b + 1] - atom_xyz[3 * c + 1];
        const float dz = atom_xyz[3 * b + 2] - atom_xyz[3 * c + 2];
        lrinv[e] = (b == c) ? 0.0f : rsqrt(dx * dx + dy * dy + dz * dz);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int ia = get_global_id(0);
    const int sh = get_global_id(1);
    if (ia >= nang || sh >= natom * nrad)
        return;
    const int a = sh / nrad, ir = sh % nrad;

    const float rm = atom_rm[a];
    const float r = rm * rad_t[ir];
    const float px = lxyz[3 * a] + r * ang_xyz[3 * ia];
    const float py = lxyz[3 * a + 1] + r * ang_xyz[3 * ia + 1];
    const float pz = lxyz[3 * a + 2] + r * ang_xyz[3 * ia + 2];
    const size_t pt = (size_t)sh * nang + ia;
    points[3 * pt] = px;
    points[3 * pt + 1] = py;
    points[3 * pt + 2] = pz;

    float near_inv = 0.0f;
    for (int c = 0; c < natom; c++)
        near_inv = fmax(near_inv, lrinv[a * natom + c]);

    float part = 1.0f;
    if (natom > 1 && r * near_inv > 0.5f * (1.0f - STRAT_A)) {
        float dist[MAX_ATOMS];
        for (int c = 0; c < natom; c++) {
            const float dx = px - lxyz[3 * c];
            const float dy = py - lxyz[3 * c + 1];
            const float dz = pz - lxyz[3 * c + 2];
            dist[c] = sqrt(dx * dx + dy * dy + dz * dz);
        }
        const float pa = cell_product(a, natom, dist, lrinv);
        if (pa == 0.0f) {
            part = 0.0f;
        } else {
            float sum = pa;
            for (int b = 0; b < natom; b++)
                if (b != a)
                    sum += cell_product(b, natom, dist, lrinv);
            part = pa / sum;
        }
    }
    weights[pt] = rm * rm * rm * rad_u[ir] * ang_w[ia] * part;
}
