/* HOG cell histograms (Dalal-Triggs): the image is cut into cell x cell pixel cells; for each cell a
 * histogram of unsigned gradient orientations (0 .. 180 degrees, nbins bins) weighted by gradient
 * magnitude, each vote split linearly between the two nearest bin centres (wrapping at 180).
 * A work-group builds one cell at a time in __local memory, looping over cells by the number of
 * groups; its items take the cell's pixels in turn and add their votes in 1/256 fixed point with
 * local atomic_add, so the sums do not depend on the items' order. Gradients are central
 * differences with the image edge clamped. */
#define MAX_BINS 32

__kernel void hog_cell_bins_local(const int width, const int height, const int cell, const int nbins,
                                  __global const float *img,
                                  __global float *hist)
{
    __local int lhist[MAX_BINS];
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    const int cells_x = width / cell;
    const int ncells = cells_x * (height / cell);
    const float bin_deg = 180.0f / nbins;

    for (int c = get_group_id(0); c < ncells; c += get_num_groups(0)) {
        for (int b = lid; b < nbins; b += lsize)
            lhist[b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);

        const int x0 = (c % cells_x) * cell;
        const int y0 = (c / cells_x) * cell;
        for (int p = lid; p < cell * cell; p += lsize) {
            const int x = x0 + p % cell;
            const int y = y0 + p / cell;
            const int xl = max(x - 1, 0), xr = min(x + 1, width - 1);
            const int yu = max(y - 1, 0), yd = min(y + 1, height - 1);
            const float gx = img[y * width + xr] - img[y * width + xl];
            const float gy = img[yd * width + x] - img[yu * width + x];
            const float mag = sqrt(gx * gx + gy * gy);
            if (mag == 0.0f)
                continue;
            float ang = atan2(gy, gx) * 57.29577951308232f;
            if (ang < 0.0f)
                ang += 180.0f;
            if (ang >= 180.0f)
                ang -= 180.0f;
            const float pos = ang / bin_deg - 0.5f;
            const float fl = floor(pos);
            const float frac = pos - fl;
            int b0 = (int)fl;
            if (b0 < 0)
                b0 += nbins;
            int b1 = b0 + 1;
            if (b1 >= nbins)
                b1 -= nbins;
            atomic_add(&lhist[b0], (int)(mag * (1.0f - frac) * 256.0f + 0.5f));
            atomic_add(&lhist[b1], (int)(mag * frac * 256.0f + 0.5f));
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int b = lid; b < nbins; b += lsize)
            hist[c * nbins + b] = lhist[b] * (1.0f / 256.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
