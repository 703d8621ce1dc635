/* Zonal statistics of a DEM per zone (catchment / administrative unit) label: for every zone the hypsometric
 * histogram (cell counts per elevation band of width 1 / inv_bw metres from zlo, bands clamped to [0, nband)) and
 * the lowest and highest elevation in whole centimetres. zone[] holds uint32 labels; labels >= nzone (outside
 * every zone) and nodata cells (-9999) are skipped. Each work-group walks the raster with a grid stride and counts
 * into a private copy of the tables in __local memory with local atomics; after a barrier the group adds its
 * non-empty bins and its extrema to the global tables with integer atomics, so the result does not depend on
 * the order. zmin_cm / zmax_cm must start at INT_MAX / INT_MIN. */

#define NODATA (-9999.0f)

__kernel void zonal_hypsometry_local_u32(const int n, const int nzone, const int nband, const float zlo,
                                         const float inv_bw,
                                         __global const uint *zone,
                                         __global const float *dem,
                                         __global uint *hist,
                                         __global int *zmin_cm,
                                         __global int *zmax_cm,
                                         __local uint *lhist,
                                         __local int *lext)
{
    const int lid = get_local_id(0), lsz = get_local_size(0);
    const int nbin = nzone * nband;
    __local int *lmin = lext, *lmax = lext + nzone;

    for (int t = lid; t < nbin; t += lsz)
        lhist[t] = 0u;
    for (int t = lid; t < nzone; t += lsz) {
        lmin[t] = INT_MAX;
        lmax[t] = INT_MIN;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int stride = get_num_groups(0) * lsz;
    for (int i = get_group_id(0) * lsz + lid; i < n; i += stride) {
        const uint z = zone[i];
        const float h = dem[i];
        if (z >= (uint)nzone || h == NODATA)
            continue;
        const int band = clamp((int)floor((h - zlo) * inv_bw), 0, nband - 1);
        atomic_inc(&lhist[z * nband + band]);
        const int cm = (int)rint(h * 100.0f);
        atomic_min(&lmin[z], cm);
        atomic_max(&lmax[z], cm);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int t = lid; t < nbin; t += lsz) {
        const uint c = lhist[t];
        if (c != 0u)
            atomic_add(&hist[t], c);
    }
    for (int t = lid; t < nzone; t += lsz) {
        if (lmin[t] != INT_MAX) {
            atomic_min(&zmin_cm[t], lmin[t]);
            atomic_max(&zmax_cm[t], lmax[t]);
        }
    }
}
