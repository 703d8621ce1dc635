/* One Jacobi pass of D8 flow accumulation by pulling: every cell of an nx x ny raster takes its own runoff plus
 * the accumulated flow of each of its eight neighbours whose D8 code (ESRI coding, uint8: 1 E, 2 SE, 4 S, 8 SW,
 * 16 W, 32 NW, 64 N, 128 NE; 0 a pit or flat, 255 nodata) points at it. Neighbours outside the raster are absent;
 * nodata cells get -1 and are never pulled from (their code matches no direction). The host repeats the pass,
 * swapping acc_in and acc_out, until the longest flow path has been covered (or the outlet's value stops
 * changing). */

__kernel void flowacc_pull_d8_pass_2d(const int nx, const int ny,
                                      __global const uchar *dir,
                                      __global const float *runoff,
                                      __global const float *acc_in,
                                      __global float *acc_out)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    const size_t c = (size_t)y * nx + x;
    if (dir[c] == 255) {
        acc_out[c] = -1.0f;
        return;
    }

    /* neighbour (x + ddx[k], y + ddy[k]) drains into this cell when its code is into[k] (it points back here) */
    const int ddx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    const int ddy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    const uchar into[8] = {16, 32, 64, 128, 1, 2, 4, 8};

    float sum = runoff[c];
    for (int k = 0; k < 8; k++) {
        const int xn = x + ddx[k], yn = y + ddy[k];
        if (xn < 0 || yn < 0 || xn >= nx || yn >= ny)
            continue;
        const size_t q = (size_t)yn * nx + xn;
        if (dir[q] == into[k])
            sum += acc_in[q];
    }
    acc_out[c] = sum;
}
