#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Macroscopic cross-section lookup of a Monte Carlo neutron transport code (the XSBench proxy's unionized
 * energy grid method), one lookup per work-item. Every nuclide has its own pointwise table of ngrid energies
 * in ascending order, each point holding (E, total, elastic, absorption, fission, nu-fission) in barns. The
 * unionized grid is the sorted union of all nuclides' energies; for union point u, union_index[u * nnuc + n]
 * is the point of nuclide n's table that starts the interval holding that energy (kept within 0 .. ngrid - 2).
 * A lookup (energy, material) binary-searches the union grid once, then walks the material's nuclides,
 * linearly interpolates each one's five cross sections in energy and adds them weighted by the nuclide's
 * number density (atoms per barn-cm). The result is the five macroscopic cross sections in 1/cm. */
#define NXS 5

__kernel void xs_macro_unionized_fp64(const int nlookup, const int nnuc, const int ngrid, const int nunion,
                                      __global const double *p_energy,
                                      __global const int *p_mat,
                                      __global const double *union_energy,
                                      __global const int *union_index,
                                      __global const double *nuc_grid,
                                      __global const int *mat_off,
                                      __global const int *mat_nuc,
                                      __global const double *mat_conc,
                                      __global double *macro_xs)
{
    const int i = get_global_id(0);
    if (i >= nlookup)
        return;

    const double e = p_energy[i];
    const int mat = p_mat[i];

    /* largest lo with union_energy[lo] <= e, within 0 .. nunion - 2 */
    int lo = 0, hi = nunion - 1;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (union_energy[mid] > e)
            hi = mid;
        else
            lo = mid;
    }

    double xs[NXS];
    for (int c = 0; c < NXS; c++)
        xs[c] = 0.0;

    const size_t row = (size_t)lo * nnuc;
    for (int k = mat_off[mat]; k < mat_off[mat + 1]; k++) {
        const int nuc = mat_nuc[k];
        const double conc = mat_conc[k];
        const int j = union_index[row + nuc];
        __global const double *low = nuc_grid + ((size_t)nuc * ngrid + j) * (NXS + 1);
        __global const double *high = low + (NXS + 1);
        const double f = (high[0] - e) / (high[0] - low[0]);
        for (int c = 0; c < NXS; c++)
            xs[c] += conc * (high[c + 1] - f * (high[c + 1] - low[c + 1]));
    }

    for (int c = 0; c < NXS; c++)
        macro_xs[(size_t)i * NXS + c] = xs[c];
}
