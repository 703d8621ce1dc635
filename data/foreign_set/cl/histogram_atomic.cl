__kernel void histogram_atomic(__global const uint *a, __global uint *b, int c)
{
    int d = get_global_id(0);
    if (d < c)
        atomic_inc(&b[a[d]]);
}
