/* Indirect copy through two index arrays: out[dst[i]] = scale * src[gather[i]],
 * dst a permutation (so no two items write the same element). */
__kernel void gather_scatter_perm(const int n, const float scale,
                                  __global const int *gather,
                                  __global const int *dst,
                                  __global const float *src,
                                  __global float *out)
{
    int i = get_global_id(0);
    if (i < n)
        out[dst[i]] = scale * src[gather[i]];
}
