// 256-bin histogram of bytes: per-work-group sub-histogram in local memory, merged with global atomics.
#define NUM_BINS 256

__kernel void histogram(__global const uchar *data, const int n,
                        __global uint *bins)
{
    __local uint local_bins[NUM_BINS];
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    for (int b = lid; b < NUM_BINS; b += lsize) {
        local_bins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        atomic_inc(&local_bins[data[i]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < NUM_BINS; b += lsize) {
        atomic_add(&bins[b], local_bins[b]);
    }
}
