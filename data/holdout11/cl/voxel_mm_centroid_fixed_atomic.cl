/* Voxel-grid downsampling of accumulated lidar sweeps, the accumulation pass. The driver delivers points as
 * integer millimetres in the vehicle frame (x, y, z; all three zero for a beam without a return) with an 8-bit
 * reflectivity. A point inside the crop box [min, min + g * leaf) falls into one voxel of a dense g_x x g_y x
 * g_z grid of leaf_mm cubes; its voxel counts it and sums its offset from the voxel's corner (exact fixed point
 * in millimetres, so the sum never depends on the order of the adds) and its reflectivity, all by integer
 * atomics. The grid keeps the sums of earlier sweeps: a later pass turns count and sums into one centroid per
 * occupied voxel. vox_sum holds four ints a voxel: dx, dy, dz and reflectivity. */
__kernel void voxel_mm_centroid_fixed_atomic(const int npts, const int leaf_mm,
                                             const int gx, const int gy, const int gz,
                                             const int min_x, const int min_y, const int min_z,
                                             __global const int *pts_mm,
                                             __global const uchar *refl,
                                             __global int *vox_count,
                                             __global int *vox_sum)
{
    const int i = get_global_id(0);
    if (i >= npts)
        return;

    const int x = pts_mm[3 * i];
    const int y = pts_mm[3 * i + 1];
    const int z = pts_mm[3 * i + 2];
    if ((x | y | z) == 0)
        return; /* no return on this beam */

    const int rx = x - min_x;
    const int ry = y - min_y;
    const int rz = z - min_z;
    if (rx < 0 || ry < 0 || rz < 0)
        return;
    const int ix = rx / leaf_mm;
    const int iy = ry / leaf_mm;
    const int iz = rz / leaf_mm;
    if (ix >= gx || iy >= gy || iz >= gz)
        return;

    const size_t v = ((size_t)iz * gy + iy) * gx + ix;
    atomic_inc(&vox_count[v]);
    __global int *acc = vox_sum + 4 * v;
    atomic_add(&acc[0], rx - ix * leaf_mm);
    atomic_add(&acc[1], ry - iy * leaf_mm);
    atomic_add(&acc[2], rz - iz * leaf_mm);
    atomic_add(&acc[3], (int)refl[i]);
}
