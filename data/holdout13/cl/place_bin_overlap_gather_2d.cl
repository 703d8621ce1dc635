/* Density map of a global placer (the bin-density term of an analytic placer): the die is a grid of nbx x nby
 * bins of bin_w x bin_h, and every bin sums the area of the standard cells that overlap it, from its list of
 * candidate cells (bin b's cells are bin_cell[bin_start[b]] .. bin_cell[bin_start[b + 1] - 1], built by the host
 * from the cells' bounding boxes). A cell is a rectangle with its lower-left corner at (cell_x, cell_y) and size
 * cell_w x cell_h. One work-item per bin on a 2-D NDRange (x over bins of a row, y over rows) gathers its cells
 * and writes the bin's density (covered area over bin area) and its overflow, the covered area above the
 * target density. No atomics: a bin only writes its own entries. */
__kernel void place_bin_overlap_gather_2d(const int nbx, const int nby,
                                          const float bin_w, const float bin_h,
                                          const float target,
                                          __global const int *bin_start,
                                          __global const int *bin_cell,
                                          __global const float *cell_x,
                                          __global const float *cell_y,
                                          __global const float *cell_w,
                                          __global const float *cell_h,
                                          __global float *density,
                                          __global float *overflow)
{
    const int bx = get_global_id(0);
    const int by = get_global_id(1);
    if (bx >= nbx || by >= nby)
        return;

    const int b = by * nbx + bx;
    const float x0 = bx * bin_w;
    const float x1 = x0 + bin_w;
    const float y0 = by * bin_h;
    const float y1 = y0 + bin_h;

    float area = 0.0f;
    const int k1 = bin_start[b + 1];
    for (int k = bin_start[b]; k < k1; k++) {
        const int c = bin_cell[k];
        const float cx = cell_x[c];
        const float cy = cell_y[c];
        const float ox = fmin(cx + cell_w[c], x1) - fmax(cx, x0);
        const float oy = fmin(cy + cell_h[c], y1) - fmax(cy, y0);
        if (ox > 0.0f && oy > 0.0f)
            area += ox * oy;
    }

    const float cap = bin_w * bin_h;
    density[b] = area / cap;
    overflow[b] = fmax(area - target * cap, 0.0f);
}
