#define HID 16
__kernel void backprop_layer(__global const float *a, __global const float *b, __global float *c, int d)
{
    __local float e[HID][HID];
    int tx = get_local_id(0), ty = get_local_id(1);
    int by = get_group_id(1);
    int row = by * HID + ty;
    e[ty][tx] = (row < d ? a[row] : 0.0f) * b[(row % 1024) * HID + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 1; s < HID; s *= 2) {
        if (ty % (2 * s) == 0) e[ty][tx] += e[ty + s][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ty == 0) c[by * HID + tx] = e[0][tx];
}
