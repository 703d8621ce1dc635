/* Morse-potential forces from a Verlet neighbour list. Atom i has nnbr[i] neighbour indices, stored
 * column-major in a list of capacity max_nbr (entry k at nbr[k * natoms + i]); listed pairs beyond
 * the cutoff are skipped. The potential is shifted so that force and energy vanish at the cutoff;
 * w of the output carries the atom's half of its pair energies. */
float morse_dvdr(float r, float depth, float alpha, float r0)
{
    const float e = exp(-alpha * (r - r0));
    return 2.0f * depth * alpha * e * (1.0f - e);
}

__kernel void morse_verlet_list(const int natoms, const int max_nbr, const float depth,
                                const float alpha, const float r0, const float rcut,
                                __global const float4 *pos, __global const int *nbr,
                                __global const int *nnbr, __global float4 *force)
{
    const int i = get_global_id(0);
    if (i >= natoms)
        return;

    const float4 pi = pos[i];
    const float rc2 = rcut * rcut;
    const float dvdr_cut = morse_dvdr(rcut, depth, alpha, r0);
    const float om_cut = 1.0f - exp(-alpha * (rcut - r0));
    const float e_cut = depth * om_cut * om_cut;

    float4 f = (float4)(0.0f);
    const int count = min(nnbr[i], max_nbr);
    for (int k = 0; k < count; k++) {
        const int j = nbr[k * natoms + i];
        const float4 d = pi - pos[j];
        const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
        if (r2 >= rc2)
            continue;
        const float r = sqrt(r2);
        const float fr = (morse_dvdr(r, depth, alpha, r0) - dvdr_cut) / r;
        f.x -= fr * d.x;
        f.y -= fr * d.y;
        f.z -= fr * d.z;
        const float om = 1.0f - exp(-alpha * (r - r0));
        f.w += 0.5f * (depth * om * om - e_cut - (r - rcut) * dvdr_cut);
    }
    force[i] = f;
}
