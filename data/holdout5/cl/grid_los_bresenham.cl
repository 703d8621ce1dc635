/* Line-of-sight queries on a 2-D occupancy grid (one byte per cell, non-zero = occupied), as a
 * robot's simulated range sensor casts them: each query walks the Bresenham line from its start
 * cell towards its end cell and stops at the first occupied cell, at the end cell, at the grid's
 * edge or after max_steps cells, whichever comes first. The result is the index of the blocking
 * cell (-1 when the line is clear) and the number of cells stepped. */
__kernel void grid_los_bresenham(const int nqueries, const int width, const int height,
                                 const int max_steps,
                                 __global const int4 *queries, __global const uchar *occ,
                                 __global int *hit_cell, __global int *steps_taken)
{
    const int q = get_global_id(0);
    if (q >= nqueries)
        return;

    const int4 r = queries[q];  /* x0, y0, x1, y1 */
    int x = r.x, y = r.y;
    const int dx = abs(r.z - r.x), dy = -abs(r.w - r.y);
    const int sx = r.x < r.z ? 1 : -1, sy = r.y < r.w ? 1 : -1;
    int err = dx + dy;
    int hit = -1;
    int n = 0;

    while (n < max_steps) {
        if (x < 0 || x >= width || y < 0 || y >= height)
            break;
        if (occ[y * width + x]) {
            hit = y * width + x;
            break;
        }
        if (x == r.z && y == r.w)
            break;
        const int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y += sy;
        }
        n++;
    }
    hit_cell[q] = hit;
    steps_taken[q] = n;
}
