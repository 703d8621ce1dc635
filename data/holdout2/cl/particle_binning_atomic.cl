/* Bin 2-D particles into a uniform grid of cells (the first pass of a cell list): each particle
 * records its cell, bumps the cell's population with atomic_inc and offers its index to atomic_min,
 * so every output is independent of the order in which work-items arrive. */
__kernel void particle_binning_atomic(const int n, const int gx, const int gy, const float inv_cell,
                                      __global const float2 *pos,
                                      __global int *cell_of,
                                      __global uint *counts,
                                      __global int *first)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const float2 p = pos[i];
    const int cx = clamp((int)floor(p.x * inv_cell), 0, gx - 1);
    const int cy = clamp((int)floor(p.y * inv_cell), 0, gy - 1);
    const int c = cy * gx + cx;
    cell_of[i] = c;
    atomic_inc(&counts[c]);
    atomic_min(&first[c], i);
}
