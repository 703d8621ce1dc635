#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* SHAKE bond constraints for united-atom chain molecules, one molecule per work-item, fp64.
 * Every molecule has natom atoms (xyz interleaved, molecules one after another) and the same ncons
 * distance constraints (cons_i[c], cons_j[c], length cons_len[c]): the bonds and the 1-3 distances that
 * fix the bond angles. new_pos holds the positions after an unconstrained step, ref_pos those before it.
 * Sweeps correct each violated constraint along its old bond vector, weighted by inverse masses, until a
 * whole sweep leaves every relative violation |d^2 - s^2| / d^2 within 2 * tol, or maxit sweeps are done.
 * Writes the constrained positions and the number of sweeps made. */
#define MAX_ATOMS 32

__kernel void shake_chain_fp64(const int nmol, const int natom, const int ncons, const int maxit, const double tol,
                               __global const double *ref_pos,
                               __global const double *new_pos,
                               __global const double *inv_mass,
                               __global const int *cons_i,
                               __global const int *cons_j,
                               __global const double *cons_len,
                               __global double *out_pos,
                               __global int *sweeps)
{
    const int m = get_global_id(0);
    if (m >= nmol)
        return;

    const size_t base = (size_t)m * natom * 3;
    __global const double *r0 = ref_pos + base;
    double p[3 * MAX_ATOMS];
    for (int k = 0; k < 3 * natom; k++)
        p[k] = new_pos[base + k];

    int it = 0;
    int moved = 1;
    while (moved && it < maxit) {
        moved = 0;
        for (int c = 0; c < ncons; c++) {
            const int a = 3 * cons_i[c];
            const int b = 3 * cons_j[c];
            const double sx = p[a] - p[b];
            const double sy = p[a + 1] - p[b + 1];
            const double sz = p[a + 2] - p[b + 2];
            const double d2 = cons_len[c] * cons_len[c];
            const double diff = d2 - (sx * sx + sy * sy + sz * sz);
            if (fabs(diff) > 2.0 * tol * d2) {
                const double rx = r0[a] - r0[b];
                const double ry = r0[a + 1] - r0[b + 1];
                const double rz = r0[a + 2] - r0[b + 2];
                const double wa = inv_mass[cons_i[c]];
                const double wb = inv_mass[cons_j[c]];
                const double g = diff / (2.0 * (rx * sx + ry * sy + rz * sz) * (wa + wb));
                p[a] += g * wa * rx;
                p[a + 1] += g * wa * ry;
                p[a + 2] += g * wa * rz;
                p[b] -= g * wb * rx;
                p[b + 1] -= g * wb * ry;
                p[b + 2] -= g * wb * rz;
                moved = 1;
            }
        }
        it++;
    }

    for (int k = 0; k < 3 * natom; k++)
        out_pos[base + k] = p[k];
    sweeps[m] = it;
}
