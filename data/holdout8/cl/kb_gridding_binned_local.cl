/* Gridding of non-Cartesian MRI k-space samples onto an oversampled gsz x gsz Cartesian grid with a
 * Kaiser-Bessel window (width cells, shape beta, peak 1), in gather form: one grid point per work-item on a 2-D
 * NDRange, a work-group covering one tile of the grid. The samples are sorted by bin (BIN x BIN cells, bins
 * row-major, nbin a side) and bin_start[b] .. bin_start[b + 1] are the samples of bin b, so the bins of one
 * bin row that the tile's window reaches are one contiguous run. The group walks those rows, staging each run
 * through __local memory TILE samples at a time (coordinates and density-compensated values); every item
 * then adds the staged samples within half a window of its point. */
#define BIN 8
#define TILE 256

/* modified Bessel function I0, polynomial fits of Abramowitz & Stegun 9.8.1 / 9.8.2 */
float bessel_i0(const float x)
{
    const float ax = fabs(x);
    if (ax < 3.75f) {
        float y = x / 3.75f;
        y *= y;
        return 1.0f + y * (3.5156229f + y * (3.0899424f + y * (1.2067492f + y * (0.2659732f
                    + y * (0.0360768f + y * 0.0045813f)))));
    }
    const float y = 3.75f / ax;
    return (exp(ax) / sqrt(ax)) * (0.39894228f + y * (0.01328592f + y * (0.00225319f + y * (-0.00157565f
            + y * (0.00916281f + y * (-0.02057706f + y * (0.02635537f + y * (-0.01647633f + y * 0.00392377f))))))));
}

__kernel void kb_gridding_binned_local(const int gsz, const int nbin, const float width, const float beta,
                                       __global const float *kx,
                                       __global const float *ky,
                                       __global const float *data_re,
                                       __global const float *data_im,
                                       __global const float *dcf,
                                       __global const int *bin_start,
                                       __global float *grid_re,
                                       __global float *grid_im,
                                       __local float *sx,
                                       __local float *sy,
                                       __local float *sre,
                                       __local float *sim)
{
    const int gx = get_global_id(0);
    const int gy = get_global_id(1);
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int lsz = get_local_size(0) * get_local_size(1);
    const float hw = 0.5f * width;
    const float inv_half2 = 1.0f / (hw * hw);
    const float norm = 1.0f / bessel_i0(beta);   /* window peak 1 */

    /* bins reached by the tile widened by half a window */
    const int x0 = get_group_id(0) * get_local_size(0);
    const int y0 = get_group_id(1) * get_local_size(1);
    const int bx0 = max(0, (int)floor(((float)x0 - hw) / BIN));
    const int bx1 = min(nbin - 1, (int)floor(((float)(x0 + get_local_size(0) - 1) + hw) / BIN));
    const int by0 = max(0, (int)floor(((float)y0 - hw) / BIN));
    const int by1 = min(nbin - 1, (int)floor(((float)(y0 + get_local_size(1) - 1) + hw) / BIN));

    const float px = (float)gx;
    const float py = (float)gy;
    float acc_re = 0.0f, acc_im = 0.0f;

    for (int by = by0; by <= by1; by++) {
        const int first = bin_start[by * nbin + bx0];
        const int last = bin_start[by * nbin + bx1 + 1];
        for (int base = first; base < last; base += TILE) {
            const int n = min(TILE, last - base);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int j = lid; j < n; j += lsz) {
                const float w = dcf[base + j];
                sx[j] = kx[base + j];
                sy[j] = ky[base + j];
                sre[j] = w * data_re[base + j];
                sim[j] = w * data_im[base + j];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int j = 0; j < n; j++) {
                const float dx = px - sx[j];
                const float dy = py - sy[j];
                if (fabs(dx) > hw || fabs(dy) > hw)
                    continue;
                const float wx = norm * bessel_i0(beta * sqrt(fmax(0.0f, 1.0f - dx * dx * inv_half2)));
                const float wy = norm * bessel_i0(beta * sqrt(fmax(0.0f, 1.0f - dy * dy * inv_half2)));
                const float w = wx * wy;
                acc_re += w * sre[j];
                acc_im += w * sim[j];
            }
        }
    }
    if (gx < gsz && gy < gsz) {
        grid_re[gy * gsz + gx] = acc_re;
        grid_im[gy * gsz + gx] = acc_im;
    }
}
