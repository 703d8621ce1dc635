/* Max aggregation of a graph neural network layer: along every edge src -> dst, each feature of src is
 * offered to the same feature of dst, which keeps the maximum. OpenCL 1.2 has atomic_max for ints only,
 * so a float is mapped to an int whose signed order is the float order (negative floats have their
 * magnitude bits flipped); agg holds these keys and starts at INT_MIN for "no neighbour yet".
 * NDRange: features along dimension 0 (coalesced rows of h), edges along dimension 1. */
inline int ordered_key(float v)
{
    const int bits = as_int(v);
    return bits >= 0 ? bits : bits ^ 0x7fffffff;
}

__kernel void gnn_scatter_max_bits(const int nedges,
                                   const int nfeat,
                                   __global const int *src,
                                   __global const int *dst,
                                   __global const float *h,
                                   __global int *agg)
{
    const int f = get_global_id(0);
    const int e = get_global_id(1);
    if (f >= nfeat || e >= nedges)
        return;

    const int key = ordered_key(h[src[e] * nfeat + f]);
    atomic_max(&agg[dst[e] * nfeat + f], key);
}
