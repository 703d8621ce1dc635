// Matrix transpose through a padded local tile (avoids bank conflicts), 2D NDRange of BLOCK x BLOCK groups.
#define BLOCK 16

__kernel void transpose(__global float *out, __global const float *in,
                        const int width, const int height)
{
    __local float tile[BLOCK][BLOCK + 1];
    int x = get_group_id(0) * BLOCK + get_local_id(0);
    int y = get_group_id(1) * BLOCK + get_local_id(1);
    if (x < width && y < height) {
        tile[get_local_id(1)][get_local_id(0)] = in[y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * BLOCK + get_local_id(0);
    y = get_group_id(0) * BLOCK + get_local_id(1);
    if (x < height && y < width) {
        out[y * height + x] = tile[get_local_id(0)][get_local_id(1)];
    }
}
