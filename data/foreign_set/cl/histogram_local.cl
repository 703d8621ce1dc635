#define BINS 256
__kernel void histogram_local(__global const uint *a, __global uint *b, int c)
{
    __local uint d[BINS];
    int e = get_local_id(0);
    for (int i = e; i < BINS; i += get_local_size(0)) d[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int f = get_global_id(0);
    if (f < c) atomic_inc(&d[a[f] & (BINS - 1)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = e; i < BINS; i += get_local_size(0))
        atomic_add(&b[get_group_id(0) * BINS + i], d[i]);
}
