/* Inverse-distance-weighted interpolation (power 2) of rain-gauge readings onto a raster, a work-item per
 * pixel on a 2-D NDRange. The gauges are counting-sorted into square bins of bin x bin cells, nbx bins a row:
 * bin b holds gauges bin_start[b] .. bin_start[b + 1] - 1. Coordinates are in cell units, pixel (x, y)
 * centred at (x + 0.5, y + 0.5). A pixel visits the bins within `search` bins of its own and uses the gauges
 * closer than search * bin cells; a gauge right on the pixel centre gives its reading outright, and a pixel
 * with no gauge in range gets nodata. nused[] counts the gauges each pixel used. */
__kernel void idw_binned_raster_2d(const int width, const int height, const int nbx, const int nby,
                                   const int bin, const int search, const float nodata,
                                   __global const int *bin_start,
                                   __global const float *gx,
                                   __global const float *gy,
                                   __global const float *gval,
                                   __global float *raster,
                                   __global int *nused)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= width || y >= height)
        return;

    const float cx = x + 0.5f;
    const float cy = y + 0.5f;
    const int bx = x / bin;
    const int by = y / bin;
    const float r = (float)(search * bin);
    const float r2 = r * r;

    float wsum = 0.0f;
    float vsum = 0.0f;
    int used = 0;
    int on_gauge = 0;
    float gauge_val = 0.0f;

    const int j0 = max(by - search, 0), j1 = min(by + search, nby - 1);
    const int i0 = max(bx - search, 0), i1 = min(bx + search, nbx - 1);
    for (int j = j0; j <= j1; j++) {
        for (int i = i0; i <= i1; i++) {
            const int b = j * nbx + i;
            const int end = bin_start[b + 1];
            for (int k = bin_start[b]; k < end; k++) {
                const float dx = gx[k] - cx;
                const float dy = gy[k] - cy;
                const float d2 = dx * dx + dy * dy;
                if (d2 >= r2)
                    continue;
                used++;
                if (d2 == 0.0f) {
                    on_gauge = 1;
                    gauge_val = gval[k];
                } else {
                    const float w = 1.0f / d2;
                    wsum += w;
                    vsum += w * gval[k];
                }
            }
        }
    }

    const int o = y * width + x;
    if (on_gauge)
        raster[o] = gauge_val;
    else
        raster[o] = used > 0 ? vsum / wsum : nodata;
    nused[o] = used;
}
