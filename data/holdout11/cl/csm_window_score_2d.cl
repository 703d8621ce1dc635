/* Real-time correlative scan matching of a 2-D laser scan against a probability grid (as in Cartographer's
 * front end), scoring every candidate of the search window on a 2-D (translation, rotation) NDRange. Rotation
 * candidate r turns the scan by theta0 + (r - nrot / 2) * dtheta; the rotated points are discretised to grid
 * cells once (res metres, a power of two) and the translation candidate t shifts them by a whole number of cells,
 * (t % side - half_win, t / side - half_win) with side = 2 * half_win + 1, from the pose's cell (cx0, cy0). The
 * score is the mean probability (uint8, 255 = surely occupied) of the cells the valid beams hit, 0 outside the
 * map; beams without a return are NaN and do not count. It is weighted down by exp(-(w_trans * |shift| + w_rot *
 * |rotation offset|)^2) so that equal matches prefer the odometry guess. The work-group stages the scan in
 * __local tiles of one point per work-item, since all its candidates walk the same beams. */
__kernel void csm_window_score_2d(const int nbeam, const int nrot, const int half_win,
                                  const float theta0, const float dtheta, const float res,
                                  const int map_w, const int map_h, const int cx0, const int cy0,
                                  const float w_trans, const float w_rot,
                                  __global const float *scan_xy,
                                  __global const uchar *prob_map,
                                  __global float *score,
                                  __local float *tile)
{
    const int side = 2 * half_win + 1;
    const int ntrans = side * side;
    const int t = get_global_id(0);
    const int r = get_global_id(1);
    const int live = t < ntrans && r < nrot;
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int lsz = get_local_size(0) * get_local_size(1);

    const float dth = (float)(r - nrot / 2) * dtheta;
    const float c = cos(theta0 + dth);
    const float s = sin(theta0 + dth);
    const float inv_res = 1.0f / res;
    const int ox = cx0 + (t % side) - half_win;
    const int oy = cy0 + (t / side) - half_win;

    uint acc = 0u;
    int nvalid = 0;
    for (int b0 = 0; b0 < nbeam; b0 += lsz) {
        const int cnt = min(lsz, nbeam - b0);
        if (lid < cnt) {
            tile[2 * lid] = scan_xy[2 * (b0 + lid)];
            tile[2 * lid + 1] = scan_xy[2 * (b0 + lid) + 1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        if (live) {
            for (int k = 0; k < cnt; k++) {
                const float bx = tile[2 * k];
                const float by = tile[2 * k + 1];
                if (isnan(bx))
                    continue;
                nvalid++;
                const int ix = (int)floor((c * bx - s * by) * inv_res) + ox;
                const int iy = (int)floor((s * bx + c * by) * inv_res) + oy;
                if (ix >= 0 && ix < map_w && iy >= 0 && iy < map_h)
                    acc += prob_map[iy * map_w + ix];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (live) {
        const float shift = hypot((float)(ox - cx0), (float)(oy - cy0)) * res;
        const float pen = w_trans * shift + w_rot * fabs(dth);
        const float mean = (nvalid > 0) ? (float)acc / (255.0f * (float)nvalid) : 0.0f;
        score[(size_t)r * ntrans + t] = mean * exp(-pen * pen);
    }
}
