/* One step of seeded region growing on a CT volume (int16 Hounsfield units, x fastest), one voxel per
 * work-item. mask_in: 0 free, 1 in the region, 2 locked (outside the body, or painted out by the user).
 * A free voxel whose value lies in the window [lo, hi] joins the region when any of its 26 neighbours is in
 * it: mask_out gets 1, and the step's count of added voxels and the sum of their values are accumulated with
 * integer atomics into stats[0] and stats[1] (the host widens or narrows the window from them and repeats
 * until nothing is added). Every other voxel is copied. */
__kernel void region_grow_window_3d(const int nx, const int ny, const int nz, const int lo, const int hi,
                                    __global const short *hu,
                                    __global const uchar *mask_in,
                                    __global uchar *mask_out,
                                    __global int *stats)
{
    const int v = get_global_id(0);
    if (v >= nx * ny * nz)
        return;

    const uchar m = mask_in[v];
    uchar out = m;
    if (m == 0) {
        const int val = hu[v];
        if (val >= lo && val <= hi) {
            const int x = v % nx;
            const int y = (v / nx) % ny;
            const int z = v / (nx * ny);
            int found = 0;
            for (int dz = -1; dz <= 1 && !found; dz++) {
                const int zz = z + dz;
                if (zz < 0 || zz >= nz)
                    continue;
                for (int dy = -1; dy <= 1 && !found; dy++) {
                    const int yy = y + dy;
                    if (yy < 0 || yy >= ny)
                        continue;
                    __global const uchar *row = mask_in + ((size_t)zz * ny + yy) * nx;
                    for (int dx = -1; dx <= 1; dx++) {
                        const int xx = x + dx;
                        if (xx >= 0 && xx < nx && row[xx] == 1) {
                            found = 1;
                            break;
                        }
                    }
                }
            }
            if (found) {
                out = 1;
                atomic_inc(&stats[0]);
                atomic_add(&stats[1], val);
            }
        }
    }
    mask_out[v] = out;
}
