/* Multifrontal extend-add, one round of a supernodal solver's assembly: every child front of the round adds its
 * update block (the Schur complement it leaves after eliminating its pivots) into its parent's frontal matrix,
 * rows and columns mapped through the child's relative index map (where each of the child's update rows sits in
 * the parent's row list). The scheduler puts no two children of one parent in the same round, so the adds need no
 * atomics. Update blocks are m x m column-major, packed back to back (child c at upd_off[c], order upd_dim[c],
 * only the lower triangle meaningful); the parents' fronts likewise (front_off[p], order front_dim[p]); the maps
 * back to back from map_off[c]. 2-D NDRange: dim 0 a row of the update block, dim 1 the child. A work-item adds
 * its row's entries on and left of the diagonal; the map is increasing, so they land in the parent's lower
 * triangle. */
__kernel void extend_add_relmap_2d(const int nchild,
                                   __global const int *upd_off,
                                   __global const int *upd_dim,
                                   __global const float *upd,
                                   __global const int *map_off,
                                   __global const int *relmap,
                                   __global const int *parent,
                                   __global const int *front_off,
                                   __global const int *front_dim,
                                   __global float *front)
{
    const int i = get_global_id(0);
    const int c = get_global_id(1);
    if (c >= nchild)
        return;
    const int m = upd_dim[c];
    if (i >= m)
        return;

    const int p = parent[c];
    const int ld = front_dim[p];
    __global const float *u = upd + upd_off[c];
    __global const int *map = relmap + map_off[c];
    __global float *f = front + front_off[p];
    const int pi = map[i];

    for (int j = 0; j <= i; j++)
        f[(size_t)map[j] * ld + pi] += u[(size_t)j * m + i];
}
