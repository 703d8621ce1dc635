/* Wirelength and routing-congestion estimate of a placed netlist: the half-perimeter wirelength (HPWL) of every
 * net and its RUDY demand map. Net k's pins are net_start[k] .. net_start[k + 1] - 1 at integer site
 * coordinates (pin_x, pin_y). A work-group takes one net at a time, looping by the number of groups: its
 * work-items stride over the pins for the bounding box, reduced in __local memory by a min / max tree. A net of
 * fewer than two pins is skipped. The net's bounding box (w x h sites, inclusive) spreads a wire density
 * (w + h) / (w * h) uniformly over its area; the work-items stride over the tiles (tile x tile sites, ntx x nty of
 * them) the box covers and add the covered area times that density, in fixed point of RUDY_ONE units a site,
 * to the tile's demand with an integer atomic_add (nets meet in tiles). Integer demand adds in any order to the
 * same total. */
#define RUDY_ONE 16

__kernel void net_hpwl_rudy_group_atomic(const int nnet, const int ntx, const int nty, const int tile,
                                         __global const int *net_start,
                                         __global const int *pin_x,
                                         __global const int *pin_y,
                                         __global int *hpwl,
                                         __global uint *demand,
                                         __local int *lo_x,
                                         __local int *hi_x,
                                         __local int *lo_y,
                                         __local int *hi_y)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int k = get_group_id(0); k < nnet; k += get_num_groups(0)) {
        const int p0 = net_start[k];
        const int p1 = net_start[k + 1];

        int ax = INT_MAX, bx = INT_MIN, ay = INT_MAX, by = INT_MIN;
        for (int p = p0 + lid; p < p1; p += lsz) {
            const int x = pin_x[p];
            const int y = pin_y[p];
            ax = min(ax, x);
            bx = max(bx, x);
            ay = min(ay, y);
            by = max(by, y);
        }
        lo_x[lid] = ax;
        hi_x[lid] = bx;
        lo_y[lid] = ay;
        hi_y[lid] = by;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz / 2; s > 0; s >>= 1) {
            if (lid < s) {
                lo_x[lid] = min(lo_x[lid], lo_x[lid + s]);
                hi_x[lid] = max(hi_x[lid], hi_x[lid + s]);
                lo_y[lid] = min(lo_y[lid], lo_y[lid + s]);
                hi_y[lid] = max(hi_y[lid], hi_y[lid + s]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const int x0 = lo_x[0], x1 = hi_x[0];
        const int y0 = lo_y[0], y1 = hi_y[0];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (p1 - p0 < 2)
            continue;

        if (lid == 0)
            hpwl[k] = (x1 - x0) + (y1 - y0);

        const int w = x1 - x0 + 1;
        const int h = y1 - y0 + 1;
        const long wh = (long)w * h;
        const long per = (long)(w + h) * RUDY_ONE;
        const int tx0 = x0 / tile, tx1 = min(x1 / tile, ntx - 1);
        const int ty0 = y0 / tile, ty1 = min(y1 / tile, nty - 1);
        const int nbx = tx1 - tx0 + 1;
        const int ncov = nbx * (ty1 - ty0 + 1);
        for (int c = lid; c < ncov; c += lsz) {
            const int tx = tx0 + c % nbx;
            const int ty = ty0 + c / nbx;
            const int ox = min(x1 + 1, (tx + 1) * tile) - max(x0, tx * tile);
            const int oy = min(y1 + 1, (ty + 1) * tile) - max(y0, ty * tile);
            atomic_add(&demand[ty * ntx + tx], (uint)((long)ox * oy * per / wh));
        }
    }
}
