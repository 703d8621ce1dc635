#define TILE 16
__kernel void transpose_tiled(__global const float *a, __global float *b, int c, int d)
{
    __local float e[TILE][TILE + 1];
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    if (x < c && y < d) e[ly][lx] = a[y * c + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int tx = get_group_id(1) * TILE + lx, ty = get_group_id(0) * TILE + ly;
    if (tx < d && ty < c) b[ty * d + tx] = e[lx][ly];
}
