/* Fine stage of a binned triangle rasterizer, one pixel per work-item on a 2-D NDRange. The screen is cut into
 * BIN x BIN pixel bins (nbx a row); the coarse stage listed, for every bin, the triangles whose bounding box
 * overlaps it, in ascending triangle order: bin_tris[bin_start[b] .. bin_start[b + 1]). Vertices are snapped to
 * 28.4 fixed point (tri_xy: x0, y0, x1, y1, x2, y2 in 1/16 pixel), depths are floats. A work-group lies inside
 * one bin; it walks the bin's list BATCH triangles at a time, its items setting up the batch in __local (the
 * vertices, a pixel bounding box and 1 / doubled area, 0 for back-facing or degenerate triangles). Every pixel
 * then evaluates the three edge functions at its centre in 64-bit integers; a pixel on an edge belongs to the
 * triangle that owns that edge's direction (dy > 0, or dy == 0 and dx < 0), so a shared edge is drawn once.
 * The depth interpolated from the edge values is tested against the nearest so far (ties keep the earlier
 * triangle). Output: the nearest depth (1.0 where nothing covers the pixel) and its triangle (-1). */
#define BIN 32
#define BATCH 64

long edge_fn(const int ax, const int ay, const int bx, const int by, const int px, const int py)
{
    return (long)(bx - ax) * (long)(py - ay) - (long)(by - ay) * (long)(px - ax);
}

int owns_edge(const int ax, const int ay, const int bx, const int by)
{
    return (by > ay) || (by == ay && bx < ax);
}

__kernel void tile_bin_raster_local(const int width, const int height, const int nbx, const int ntri,
                                    __global const int *tri_xy,
                                    __global const float *tri_z,
                                    __global const int *bin_start,
                                    __global const int *bin_tris,
                                    __global float *zbuf,
                                    __global int *idbuf)
{
    __local int sv[BATCH * 6];
    __local float sz[BATCH * 3];
    __local float sinv[BATCH];
    __local int sbox[BATCH * 4];
    __local int sid[BATCH];

    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int lsz = get_local_size(0) * get_local_size(1);
    const int bin = (int)(get_group_id(1) * get_local_size(1) / BIN) * nbx
                    + (int)(get_group_id(0) * get_local_size(0) / BIN);
    const int first = bin_start[bin];
    const int last = bin_start[bin + 1];
    const int px = x * 16 + 8;   /* pixel centre in 28.4 */
    const int py = y * 16 + 8;

    float best_z = 1.0f;
    int best_id = -1;

    for (int base = first; base < last; base += BATCH) {
        const int n = min(BATCH, last - base);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = lid; j < n; j += lsz) {
            const int t = bin_tris[base + j];
            if (t < 0 || t >= ntri) {
                sinv[j] = 0.0f;
                continue;
            }
            const int x0 = tri_xy[6 * t], y0 = tri_xy[6 * t + 1];
            const int x1 = tri_xy[6 * t + 2], y1 = tri_xy[6 * t + 3];
            const int x2 = tri_xy[6 * t + 4], y2 = tri_xy[6 * t + 5];
            const long area = edge_fn(x0, y0, x1, y1, x2, y2);
            sinv[j] = (area > 0) ? 1.0f / (float)area : 0.0f;
            sv[6 * j] = x0;
            sv[6 * j + 1] = y0;
            sv[6 * j + 2] = x1;
            sv[6 * j + 3] = y1;
            sv[6 * j + 4] = x2;
            sv[6 * j + 5] = y2;
            sbox[4 * j] = min(x0, min(x1, x2)) >> 4;
            sbox[4 * j + 1] = max(x0, max(x1, x2)) >> 4;
            sbox[4 * j + 2] = min(y0, min(y1, y2)) >> 4;
            sbox[4 * j + 3] = max(y0, max(y1, y2)) >> 4;
            sz[3 * j] = tri_z[3 * t];
            sz[3 * j + 1] = tri_z[3 * t + 1];
            sz[3 * j + 2] = tri_z[3 * t + 2];
            sid[j] = t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (x < width && y < height) {
            for (int j = 0; j < n; j++) {
                const float inv = sinv[j];
                if (inv == 0.0f)
                    continue;
                if (x < sbox[4 * j] || x > sbox[4 * j + 1] || y < sbox[4 * j + 2] || y > sbox[4 * j + 3])
                    continue;
                const int ax = sv[6 * j], ay = sv[6 * j + 1];
                const int bx = sv[6 * j + 2], by = sv[6 * j + 3];
                const int cx = sv[6 * j + 4], cy = sv[6 * j + 5];
                const long w0 = edge_fn(bx, by, cx, cy, px, py);
                if (w0 < 0 || (w0 == 0 && !owns_edge(bx, by, cx, cy)))
                    continue;
                const long w1 = edge_fn(cx, cy, ax, ay, px, py);
                if (w1 < 0 || (w1 == 0 && !owns_edge(cx, cy, ax, ay)))
                    continue;
                const long w2 = edge_fn(ax, ay, bx, by, px, py);
                if (w2 < 0 || (w2 == 0 && !owns_edge(ax, ay, bx, by)))
                    continue;
                const float z = ((float)w0 * sz[3 * j] + (float)w1 * sz[3 * j + 1] + (float)w2 * sz[3 * j + 2]) * inv;
                if (z < best_z) {
                    best_z = z;
                    best_id = sid[j];
                }
            }
        }
    }
    if (x < width && y < height) {
        zbuf[y * width + x] = best_z;
        idbuf[y * width + x] = best_id;
    }
}
