/* Depth-only rasteriser, one triangle per work-item. Vertices are in 28.4 fixed-point pixel
 * coordinates (y up) with 24-bit depths. Back-facing and degenerate triangles (area <= 0) are culled.
 * The triangle walks the pixels of its bounding box, clipped to the viewport, with integer edge
 * functions stepped incrementally from pixel centre to pixel centre; a top-left fill rule keeps
 * shared edges from being drawn twice. The covered pixels' depths are interpolated exactly from the
 * barycentric weights and written with atomic_min, so the nearest surface wins whatever the order. */
typedef long edge_t;

static edge_t edge_fn(int ax, int ay, int bx, int by, int px, int py)
{
    return (edge_t)(bx - ax) * (py - ay) - (edge_t)(by - ay) * (px - ax);
}

/* edges whose pixels belong to the triangle when a sample lies exactly on them */
static int top_left(int ax, int ay, int bx, int by)
{
    return (ay == by && bx < ax) || (by < ay);
}

__kernel void raster_tri_depth_fixed(const int ntris, const int width, const int height,
                                     __global const int *xy, __global const uint *z,
                                     __global uint *depth)
{
    const int t = get_global_id(0);
    if (t >= ntris)
        return;

    const int x0 = xy[6 * t], y0 = xy[6 * t + 1];
    const int x1 = xy[6 * t + 2], y1 = xy[6 * t + 3];
    const int x2 = xy[6 * t + 4], y2 = xy[6 * t + 5];
    const edge_t area = edge_fn(x0, y0, x1, y1, x2, y2);
    if (area <= 0)
        return;

    const int px_lo = max(min(min(x0, x1), x2), 0) >> 4;
    const int py_lo = max(min(min(y0, y1), y2), 0) >> 4;
    const int px_hi = min(max(max(x0, x1), x2) >> 4, width - 1);
    const int py_hi = min(max(max(y0, y1), y2) >> 4, height - 1);
    if (px_lo > px_hi || py_lo > py_hi)
        return;

    const edge_t bias0 = top_left(x1, y1, x2, y2) ? 0 : -1;
    const edge_t bias1 = top_left(x2, y2, x0, y0) ? 0 : -1;
    const edge_t bias2 = top_left(x0, y0, x1, y1) ? 0 : -1;
    const edge_t z0 = z[3 * t], z1 = z[3 * t + 1], z2 = z[3 * t + 2];

    /* moving one pixel (16 units) in x or y changes each edge function by a constant */
    const edge_t dx0 = (edge_t)(y1 - y2) * 16, dy0 = (edge_t)(x2 - x1) * 16;
    const edge_t dx1 = (edge_t)(y2 - y0) * 16, dy1 = (edge_t)(x0 - x2) * 16;
    const edge_t dx2 = (edge_t)(y0 - y1) * 16, dy2 = (edge_t)(x1 - x0) * 16;
    const int sx = (px_lo << 4) + 8, sy = (py_lo << 4) + 8;
    edge_t row0 = edge_fn(x1, y1, x2, y2, sx, sy);
    edge_t row1 = edge_fn(x2, y2, x0, y0, sx, sy);
    edge_t row2 = edge_fn(x0, y0, x1, y1, sx, sy);

    for (int py = py_lo; py <= py_hi; py++) {
        edge_t w0 = row0, w1 = row1, w2 = row2;
        for (int px = px_lo; px <= px_hi; px++) {
            if (w0 + bias0 >= 0 && w1 + bias1 >= 0 && w2 + bias2 >= 0) {
                const uint d = (uint)((w0 * z0 + w1 * z1 + w2 * z2) / area);
                atomic_min(&depth[py * width + px], d);
            }
            w0 += dx0; w1 += dx1; w2 += dx2;
        }
        row0 += dy0; row1 += dy1; row2 += dy2;
    }
}
