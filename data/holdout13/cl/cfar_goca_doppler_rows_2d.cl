/* Greatest-of cell-averaging CFAR on a range-Doppler power map (one row of nrange cells per Doppler bin). For
 * the cell under test, the training cells are ntrain cells on each side in range beyond nguard guard cells; the
 * leading and lagging windows are averaged separately and the larger mean is the noise estimate, which keeps
 * false alarms down at clutter edges. Near either end of the row only the cells that exist are averaged, and a
 * side with no cell at all is left out. The threshold is alpha times the noise estimate; a cell above it is a
 * detection, and each Doppler row counts its detections (integer atomic, so the count does not depend on the
 * order). 2-D NDRange: dim 0 the range cell, dim 1 the Doppler bin. */
__kernel void cfar_goca_doppler_rows_2d(const int nrange, const int ndopp, const int nguard, const int ntrain,
                                        const float alpha,
                                        __global const float *power,
                                        __global float *thresh,
                                        __global uchar *det,
                                        __global int *row_hits)
{
    const int r = get_global_id(0);
    const int d = get_global_id(1);
    if (r >= nrange || d >= ndopp)
        return;

    __global const float *row = power + (size_t)d * nrange;

    /* leading window: r - nguard - ntrain .. r - nguard - 1 */
    const int lo0 = max(r - nguard - ntrain, 0);
    const int lo1 = r - nguard;
    float lead = 0.0f;
    int nlead = 0;
    for (int i = lo0; i < lo1; i++) {
        lead += row[i];
        nlead++;
    }
    /* lagging window: r + nguard + 1 .. r + nguard + ntrain */
    const int hi0 = r + nguard + 1;
    const int hi1 = min(r + nguard + ntrain + 1, nrange);
    float lag = 0.0f;
    int nlag = 0;
    for (int i = hi0; i < hi1; i++) {
        lag += row[i];
        nlag++;
    }

    float noise;
    if (nlead > 0 && nlag > 0)
        noise = fmax(lead / nlead, lag / nlag);
    else if (nlead > 0)
        noise = lead / nlead;
    else
        noise = lag / nlag;

    const float t = alpha * noise;
    const size_t cell = (size_t)d * nrange + r;
    thresh[cell] = t;
    if (row[r] > t) {
        det[cell] = 1;
        atomic_inc(&row_hits[d]);
    } else {
        det[cell] = 0;
    }
}
