/* Radial distribution function histogram of one trajectory frame whose coordinates are stored the
 * way compressed trajectories keep them: integers in a fixed unit (here 1/1000 nm), in a cubic box of
 * box units. Each unordered pair i < j within nbins * bin_width counts once in bin r / bin_width, r the
 * integer part of the minimum-image distance (an integer square root, so the bin never depends on
 * floating-point rounding). Atom j positions are staged in __local tiles, one tile per pass; every
 * work-group counts into its own __local histogram with atomic_inc and adds it to the global one at
 * the end. Work-group g starts at its own tile, since earlier atoms pair with it in their groups. */
__kernel void rdf_xtc_int_local(const int natom, const int box, const int bin_width, const int nbins,
                                __global const int *pos,
                                __global uint *hist,
                                __local int *tile,
                                __local uint *lhist)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int hbox = box / 2;
    const int rmax = nbins * bin_width;
    const int rmax2 = rmax * rmax;

    for (int b = lid; b < nbins; b += lsize)
        lhist[b] = 0u;

    int xi = 0, yi = 0, zi = 0;
    if (i < natom) {
        xi = pos[3 * i];
        yi = pos[3 * i + 1];
        zi = pos[3 * i + 2];
    }

    for (int t0 = get_group_id(0) * lsize; t0 < natom; t0 += lsize) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const int jl = t0 + lid;
        if (jl < natom) {
            tile[3 * lid] = pos[3 * jl];
            tile[3 * lid + 1] = pos[3 * jl + 1];
            tile[3 * lid + 2] = pos[3 * jl + 2];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (i < natom) {
            const int cnt = min(lsize, natom - t0);
            for (int k = 0; k < cnt; k++) {
                if (t0 + k <= i)
                    continue;
                int dx = tile[3 * k] - xi;
                int dy = tile[3 * k + 1] - yi;
                int dz = tile[3 * k + 2] - zi;
                if (dx > hbox) dx -= box; else if (dx < -hbox) dx += box;
                if (dy > hbox) dy -= box; else if (dy < -hbox) dy += box;
                if (dz > hbox) dz -= box; else if (dz < -hbox) dz += box;
                const int r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < rmax2) {
                    int r = (int)sqrt((float)r2);
                    while (r * r > r2)
                        r--;
                    while ((r + 1) * (r + 1) <= r2)
                        r++;
                    atomic_inc(&lhist[r / bin_width]);
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < nbins; b += lsize)
        if (lhist[b] != 0u)
            atomic_add(&hist[b], lhist[b]);
}
