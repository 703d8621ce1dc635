/* Sum of each block of 256 floats, "interleaved addressing" tree in local memory:
 * at stride s, the work-items whose id is a multiple of 2s add their neighbour.
 * One partial sum per work-group. */
#define BLOCK 256

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void reduce_interleaved_mod(__global const float *in, __global float *partial)
{
    __local float sdata[BLOCK];
    unsigned int tid = get_local_id(0);
    unsigned int i = get_global_id(0);
    sdata[tid] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (unsigned int s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        partial[get_group_id(0)] = sdata[0];
}
