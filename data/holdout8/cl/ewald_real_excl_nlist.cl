/* Real-space part of an Ewald sum over a box of rigid three-site water molecules, one atom per work-item.
 * Atom i's neighbours (all atoms within the cutoff plus a skin, both directions of every pair) are
 * nbr_list[nbr_start[i] .. nbr_start[i + 1]); distances use the periodic minimum image of the cubic box.
 * Pairs of the same molecule are excluded from the Coulomb sum: for them the kernel removes what the
 * reciprocal-space sum counted, -qi qj erf(alpha r) / r, at any distance. Other pairs add the screened
 * term qi qj erfc(alpha r) / r inside the cutoff. Writes the force on each atom and half its pair energy. */
__kernel void ewald_real_excl_nlist(const int natom, const float box, const float alpha, const float rcut,
                                    __global const float *x,
                                    __global const float *y,
                                    __global const float *z,
                                    __global const float *charge,
                                    __global const int *mol,
                                    __global const uint *nbr_start,
                                    __global const uint *nbr_list,
                                    __global float *fx,
                                    __global float *fy,
                                    __global float *fz,
                                    __global float *energy)
{
    const int i = get_global_id(0);
    if (i >= natom)
        return;

    const float xi = x[i], yi = y[i], zi = z[i];
    const float qi = charge[i];
    const int mi = mol[i];
    const float inv_box = 1.0f / box;
    const float rc2 = rcut * rcut;
    const float two_a_sqrtpi = alpha * M_2_SQRTPI_F;

    float ax = 0.0f, ay = 0.0f, az = 0.0f, e = 0.0f;
    const uint end = nbr_start[i + 1];
    for (uint k = nbr_start[i]; k < end; k++) {
        const uint j = nbr_list[k];
        float dx = xi - x[j];
        float dy = yi - y[j];
        float dz = zi - z[j];
        dx -= box * rint(dx * inv_box);
        dy -= box * rint(dy * inv_box);
        dz -= box * rint(dz * inv_box);
        const float r2 = dx * dx + dy * dy + dz * dz;
        const float qq = qi * charge[j];
        float fscal;
        if (mol[j] == mi) {
            const float r = sqrt(r2);
            const float ar = alpha * r;
            const float erf_r = erf(ar) / r;
            e -= 0.5f * qq * erf_r;
            fscal = -qq * (erf_r - two_a_sqrtpi * exp(-ar * ar)) / r2;
        } else if (r2 < rc2) {
            const float r = sqrt(r2);
            const float ar = alpha * r;
            const float erfc_r = erfc(ar) / r;
            e += 0.5f * qq * erfc_r;
            fscal = qq * (erfc_r + two_a_sqrtpi * exp(-ar * ar)) / r2;
        } else {
            continue;
        }
        ax += fscal * dx;
        ay += fscal * dy;
        az += fscal * dz;
    }
    fx[i] = ax;
    fy[i] = ay;
    fz[i] = az;
    energy[i] = e;
}
