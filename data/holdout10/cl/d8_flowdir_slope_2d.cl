/* D8 flow directions on a digital elevation model (row-major, width x height, rows growing southwards), a
 * work-item per cell on a 2-D NDRange: a cell drains to the neighbour of steepest descent, the drop divided
 * by the distance (diagonal neighbours are sqrt(2) cells away, so their drop is scaled by 1/sqrt(2)).
 * Directions are ESRI codes: 1 east, 2 south-east, 4 south, 8 south-west, 16 west, 32 north-west, 64 north,
 * 128 north-east; on a tie the first of these wins. Neighbours off the grid or void (nodata) are skipped.
 * A cell with no lower neighbour (a pit or a flat) gets 0, a void cell 255. slope[] is the steepest descent
 * in degrees (0 for pits and flats, nodata for voids). */
__constant int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant int DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};

__kernel void d8_flowdir_slope_2d(const int width, const int height, const float cellsize, const float nodata,
                                  __global const float *dem,
                                  __global uchar *dir,
                                  __global float *slope)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const int c = y * width + x;
    const float z = dem[c];
    if (z == nodata) {
        dir[c] = 255;
        slope[c] = nodata;
        return;
    }

    float best = 0.0f;
    int code = 0;
    for (int k = 0; k < 8; k++) {
        const int xn = x + DX[k];
        const int yn = y + DY[k];
        if (xn < 0 || xn >= width || yn < 0 || yn >= height)
            continue;
        const float zn = dem[yn * width + xn];
        if (zn == nodata)
            continue;
        float drop = z - zn;
        if (k & 1)
            drop *= 0.70710678f;
        if (drop > best) {
            best = drop;
            code = 1 << k;
        }
    }
    dir[c] = (uchar)code;
    slope[c] = degrees(atan(best / cellsize));
}
