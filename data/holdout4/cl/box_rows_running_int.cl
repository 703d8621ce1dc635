/* Horizontal box filter of an int32 depth map (millimetres) by a running sum, one work-item per
 * image row: the window of 2r+1 pixels slides along the row, adding the pixel that enters and
 * dropping the one that leaves. Past the ends the edge pixel repeats. Output: the rounded mean. */
__kernel void box_rows_running_int(const int width, const int height, const int radius,
                                   __global const int *src,
                                   __global int *dst)
{
    const int y = get_global_id(0);
    if (y >= height)
        return;

    __global const int *row = src + y * width;
    __global int *out = dst + y * width;
    const int n = 2 * radius + 1;

    int sum = 0;
    for (int k = -radius; k <= radius; k++)
        sum += row[clamp(k, 0, width - 1)];

    for (int x = 0; x < width; x++) {
        out[x] = (sum + n / 2) / n;
        sum += row[min(x + radius + 1, width - 1)] - row[max(x - radius, 0)];
    }
}
