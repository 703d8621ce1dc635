/* Zone assignment of geocoded points (case addresses, say) to administrative polygons by the even-odd ray
 * crossing rule. Coordinates are integer micro-degrees (x longitude, y latitude), as many GIS exports store
 * them, so the crossing test is exact: the side of an edge is the sign of a cross product in 64-bit integers.
 * Polygon p's ring is vx[k], vy[k] for k in [poly_off[p], poly_off[p + 1]), closed implicitly, and its
 * bounding box is bbox[p] = (xmin, ymin, xmax, ymax). The work-group copies the boxes into __local memory a
 * tile at a time; a work-item runs the crossing test only on the polygons whose box holds its point.
 * Polygons may overlap (districts of different kinds): zone[i] is the lowest index of a polygon containing
 * point i (-1 when there is none) and nzone[i] the number of polygons containing it. */
#define TILE 256

__kernel void pip_zone_tiles_local(const int npts, const int npoly,
                                   __global const int *px,
                                   __global const int *py,
                                   __global const int *poly_off,
                                   __global const int *vx,
                                   __global const int *vy,
                                   __global const int4 *bbox,
                                   __global int *zone,
                                   __global int *nzone,
                                   __local int4 *lbox)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int live = i < npts;
    const int x = live ? px[i] : 0;
    const int y = live ? py[i] : 0;
    int first = -1;
    int count = 0;

    for (int base = 0; base < npoly; base += TILE) {
        const int ntile = min(TILE, npoly - base);
        for (int k = lid; k < ntile; k += lsz)
            lbox[k] = bbox[base + k];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (live) {
            for (int k = 0; k < ntile; k++) {
                const int4 b = lbox[k];
                if (x < b.x || x > b.z || y < b.y || y > b.w)
                    continue;
                const int p = base + k;
                const int end = poly_off[p + 1];
                int inside = 0;
                int j = end - 1;
                for (int a = poly_off[p]; a < end; j = a++) {
                    const int ay = vy[a];
                    const int by = vy[j];
                    if ((ay > y) != (by > y)) {
                        const long ax = vx[a];
                        const long dy = (long)by - ay;
                        const long lhs = ((long)x - ax) * dy;
                        const long rhs = ((long)vx[j] - ax) * ((long)y - ay);
                        if (dy > 0 ? lhs < rhs : lhs > rhs)
                            inside = !inside;
                    }
                }
                if (inside) {
                    if (first < 0)
                        first = p;
                    count++;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (live) {
        zone[i] = first;
        nzone[i] = count;
    }
}
