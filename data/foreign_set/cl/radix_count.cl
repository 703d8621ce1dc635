#define RADIX 16
__kernel void radix_count(__global const uint *a, __global uint *b, int c, int d)
{
    __local uint e[RADIX];
    int l = get_local_id(0);
    if (l < RADIX) e[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int i = get_global_id(0);
    if (i < c) atomic_inc(&e[(a[i] >> d) & (RADIX - 1)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < RADIX) b[l * get_num_groups(0) + get_group_id(0)] = e[l];
}
