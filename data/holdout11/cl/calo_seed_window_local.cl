/* Calorimeter clustering, the seeding step of a sliding-window / topological clusterer on a 2-D NDRange over an
 * eta x phi grid of cells (phi the fast index, periodic; eta bounded). Cell energies are zero-suppressed first:
 * a cell counts only when its energy exceeds cell_sig times the noise of its eta ring. A cell is a seed when
 * its energy exceeds seed_sig times the noise and it is a local maximum of its 3 x 3 neighbourhood (ties go
 * to the cell that comes first in raster order). For a seed the kernel sums the 5 x 5 window around it and
 * writes the window energy and its energy-weighted barycentre offsets in eta and phi (in cells); other
 * cells get zeros. Each work-group stages its tile with a two-cell halo (phi wrapped, eta padded with
 * zeros) in __local memory, already zero-suppressed. */
#define HALO 2

__kernel void calo_seed_window_local(const int neta, const int nphi, const float seed_sig, const float cell_sig,
                                     __global const float *e_cell,
                                     __global const float *noise,
                                     __global int *seed,
                                     __global float *clus_e,
                                     __global float *clus_deta,
                                     __global float *clus_dphi,
                                     __local float *tile)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int wx = get_local_size(0), wy = get_local_size(1);
    const int tw = wx + 2 * HALO, th = wy + 2 * HALO;
    const int x0 = get_group_id(0) * wx - HALO;
    const int y0 = get_group_id(1) * wy - HALO;

    for (int k = ly * wx + lx; k < tw * th; k += wx * wy) {
        const int ty = k / tw, tx = k - ty * tw;
        const int gy = y0 + ty;
        const int gx = ((x0 + tx) % nphi + nphi) % nphi;
        float v = 0.0f;
        if (gy >= 0 && gy < neta) {
            const float e = e_cell[gy * nphi + gx];
            if (e > cell_sig * noise[gy])
                v = e;
        }
        tile[k] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nphi || y >= neta)
        return;

    const int c = (ly + HALO) * tw + lx + HALO;
    const float ec = tile[c];
    int is_seed = ec > seed_sig * noise[y];
    for (int dy = -1; dy <= 1 && is_seed; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            const float en = tile[c + dy * tw + dx];
            const int before = dy < 0 || (dy == 0 && dx < 0);
            if ((dy != 0 || dx != 0) && (before ? en >= ec : en > ec))
                is_seed = 0;
        }
    }

    float sum = 0.0f, seta = 0.0f, sphi = 0.0f;
    if (is_seed) {
        for (int dy = -HALO; dy <= HALO; dy++) {
            for (int dx = -HALO; dx <= HALO; dx++) {
                const float en = tile[c + dy * tw + dx];
                sum += en;
                seta += dy * en;
                sphi += dx * en;
            }
        }
    }
    const size_t o = (size_t)y * nphi + x;
    seed[o] = is_seed;
    clus_e[o] = sum;
    clus_deta[o] = is_seed ? seta / sum : 0.0f;
    clus_dphi[o] = is_seed ? sphi / sum : 0.0f;
}
