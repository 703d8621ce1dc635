/* Geometric multigrid for the 2-D Poisson problem -lap(u) = f (vertex-centred, zero Dirichlet boundary), the step
 * between the fine smoother and the coarse solve: residual r = f - A u of the 5-point operator on the fine grid of
 * (2 ncx + 1) x (2 ncy + 1) points, restricted by full weighting (1/16 [1 2 1; 2 4 2; 1 2 1]) to the coarse grid of
 * (ncx + 1) x (ncy + 1) points. A work-group owns a tile of coarse points: it stages the fine u of its footprint
 * plus a one-point halo in __local memory, computes the fine residuals of the footprint into a second __local tile
 * (zero on and outside the boundary), then each work-item weights the nine residuals around its coarse point.
 * Coarse boundary points get 0. */
__kernel void mg_fullweight_resid_local(const int ncx, const int ncy, const float inv_h2,
                                        __global const float *u,
                                        __global const float *f,
                                        __global float *rc,
                                        __local float *ut,
                                        __local float *rt)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_local_size(0);
    const int by = get_local_size(1);
    const int cx0 = get_group_id(0) * bx;
    const int cy0 = get_group_id(1) * by;
    const int nfx = 2 * ncx + 1;
    const int nfy = 2 * ncy + 1;
    const int tid = ly * bx + lx;
    const int nthr = bx * by;

    /* fine u over the footprint and halo: origin (2 cx0 - 2, 2 cy0 - 2) */
    const int tw = 2 * bx + 3;
    const int th = 2 * by + 3;
    for (int k = tid; k < tw * th; k += nthr) {
        const int ty = k / tw;
        const int tx = k - ty * tw;
        const int gx = 2 * cx0 - 2 + tx;
        const int gy = 2 * cy0 - 2 + ty;
        ut[k] = (gx >= 0 && gx < nfx && gy >= 0 && gy < nfy) ? u[gy * nfx + gx] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* fine residuals of the footprint: origin (2 cx0 - 1, 2 cy0 - 1) */
    const int rw = 2 * bx + 1;
    const int rh = 2 * by + 1;
    for (int k = tid; k < rw * rh; k += nthr) {
        const int ry = k / rw;
        const int rx = k - ry * rw;
        const int gx = 2 * cx0 - 1 + rx;
        const int gy = 2 * cy0 - 1 + ry;
        float r = 0.0f;
        if (gx > 0 && gx < nfx - 1 && gy > 0 && gy < nfy - 1) {
            const int c = (ry + 1) * tw + rx + 1;
            const float au = 4.0f * ut[c] - ut[c - 1] - ut[c + 1] - ut[c - tw] - ut[c + tw];
            r = f[gy * nfx + gx] - inv_h2 * au;
        }
        rt[k] = r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int cx = cx0 + lx;
    const int cy = cy0 + ly;
    if (cx > ncx || cy > ncy)
        return;
    float s = 0.0f;
    if (cx > 0 && cx < ncx && cy > 0 && cy < ncy) {
        const int c = (2 * ly + 1) * rw + 2 * lx + 1;
        s = 0.25f * rt[c]
          + 0.125f * (rt[c - 1] + rt[c + 1] + rt[c - rw] + rt[c + rw])
          + 0.0625f * (rt[c - rw - 1] + rt[c - rw + 1] + rt[c + rw - 1] + rt[c + rw + 1]);
    }
    rc[cy * (ncx + 1) + cx] = s;
}
