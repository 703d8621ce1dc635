/* 256-bin histogram of a byte stream read four bytes at a time (uchar4).
 * A fixed grid strides over the data; each work-group counts into local bins with
 * local atomics and adds them to the global histogram at the end. */
__kernel void histogram256_uchar4(const uint n4,
                                  __global const uchar4 *data,
                                  __global uint *hist)
{
    __local uint bins[256];
    const uint lid = get_local_id(0);
    const uint lsz = get_local_size(0);
    for (uint b = lid; b < 256; b += lsz)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint i = get_global_id(0); i < n4; i += get_global_size(0)) {
        uchar4 v = data[i];
        atomic_inc(&bins[v.x]);
        atomic_inc(&bins[v.y]);
        atomic_inc(&bins[v.z]);
        atomic_inc(&bins[v.w]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint b = lid; b < 256; b += lsz)
        if (bins[b])
            atomic_add(&hist[b], bins[b]);
}
