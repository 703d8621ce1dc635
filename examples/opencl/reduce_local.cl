// Tree reduction in local memory; the scratch buffer is a kernel argument (__local pointer).
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch, const unsigned int n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = get_local_size(0) / 2; offset > 0; offset >>= 1) {
        if (lid < offset) {
            scratch[lid] += scratch[lid + offset];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
