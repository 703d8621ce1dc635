/* Joint histogram of two label images, as used for mutual information in image registration: pixel i
 * adds one to bin (a[i], b[i]) of a bins x bins table. Each work-group fills a private copy of the table
 * in __local memory (sized at launch) while walking the pixels with a grid-stride loop, then adds its
 * non-empty bins to the global table with atomic_add. */
__kernel void joint_histogram_local(const int n,
                                    const int bins,
                                    __global const int *a,
                                    __global const int *b,
                                    __local uint *table,
                                    __global uint *joint)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int nbins = bins * bins;

    for (int k = lid; k < nbins; k += lsz)
        table[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&table[a[i] * bins + b[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = lid; k < nbins; k += lsz) {
        const uint c = table[k];
        if (c != 0)
            atomic_add(&joint[k], c);
    }
}
