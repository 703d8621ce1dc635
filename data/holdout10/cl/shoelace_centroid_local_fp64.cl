#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Area, centroid and perimeter of land parcels (polygon rings in projected metres, UTM say) by the shoelace
 * formula in double precision. Ring p is x[k], y[k] for k in [ring_off[p], ring_off[p + 1]), closed implicitly.
 * Work-groups take rings in turn (a group moves on by the number of groups); the work-items stride over the
 * ring's edges with the coordinates taken relative to its first vertex (to keep the cross products small),
 * and the four partial sums are added up in __local memory by a tree. area[] is signed (negative for a
 * clockwise ring, a hole); a ring of zero area (collapsed to a line) gets its first vertex as centroid. */
__kernel void shoelace_centroid_local_fp64(const int nring,
                                           __global const int *ring_off,
                                           __global const double *x,
                                           __global const double *y,
                                           __global double *area,
                                           __global double *cx,
                                           __global double *cy,
                                           __global double *perim,
                                           __local double *red)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    __local double *ra = red;
    __local double *rx = red + lsz;
    __local double *ry = red + 2 * lsz;
    __local double *rp = red + 3 * lsz;

    for (int p = get_group_id(0); p < nring; p += get_num_groups(0)) {
        const int begin = ring_off[p];
        const int nv = ring_off[p + 1] - begin;
        const double x0 = x[begin];
        const double y0 = y[begin];

        double sa = 0.0, sx = 0.0, sy = 0.0, sp = 0.0;
        for (int k = lid; k < nv; k += lsz) {
            const int k1 = (k + 1 == nv) ? 0 : k + 1;
            const double xa = x[begin + k] - x0, ya = y[begin + k] - y0;
            const double xb = x[begin + k1] - x0, yb = y[begin + k1] - y0;
            const double cr = xa * yb - xb * ya;
            sa += cr;
            sx += (xa + xb) * cr;
            sy += (ya + yb) * cr;
            sp += sqrt((xb - xa) * (xb - xa) + (yb - ya) * (yb - ya));
        }
        ra[lid] = sa;
        rx[lid] = sx;
        ry[lid] = sy;
        rp[lid] = sp;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int h = lsz / 2; h > 0; h >>= 1) {
            if (lid < h) {
                ra[lid] += ra[lid + h];
                rx[lid] += rx[lid + h];
                ry[lid] += ry[lid + h];
                rp[lid] += rp[lid + h];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            const double a2 = ra[0];
            area[p] = 0.5 * a2;
            if (a2 != 0.0) {
                cx[p] = x0 + rx[0] / (3.0 * a2);
                cy[p] = y0 + ry[0] / (3.0 * a2);
            } else {
                cx[p] = x0;
                cy[p] = y0;
            }
            perim[p] = rp[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
