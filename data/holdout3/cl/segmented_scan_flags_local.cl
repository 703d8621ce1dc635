/* Segmented inclusive sum over head flags: head_flags[i] != 0 starts a new segment at i.
 * Each work-group scans its tile in __local memory, Hillis-Steele doubling on (value, flag)
 * pairs: a partial sum only flows right while no head lies in between. Segments do not cross
 * a tile (the producer puts a head at every 64th element; the first item of a tile is a head). */
__kernel void segmented_scan_flags_local(const int n,
                                         __global const float *vals,
                                         __global const int *head_flags,
                                         __global float *out,
                                         __local float *sval,
                                         __local int *sflag)
{
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);

    sval[lid] = (gid < n) ? vals[gid] : 0.0f;
    sflag[lid] = (gid < n) ? (head_flags[gid] != 0) : 1;
    if (lid == 0)
        sflag[0] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int off = 1; off < lsize; off <<= 1) {
        float v = sval[lid];
        int f = sflag[lid];
        if (lid >= off) {
            if (!f)
                v += sval[lid - off];
            f |= sflag[lid - off];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        sval[lid] = v;
        sflag[lid] = f;
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (gid < n)
        out[gid] = sval[lid];
}
