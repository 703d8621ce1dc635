/* Spherical projection of a lidar point cloud into a range image (the RangeNet++ layout: column from the yaw,
 * 0 at the back and increasing clockwise from above; row from the pitch inside the vertical field of view, row 0
 * at the top), with a z-buffer so that every pixel keeps its nearest return. Points without a return (NaN),
 * closer than min_range (the vehicle itself) or beyond max_range, and points above or below the field of view
 * are dropped. The depth key is packed into one uint: the range in 4 mm steps in the high 16 bits and the
 * return's 16-bit reflectivity in the low ones, so a single atomic_min keeps the nearest return (the dimmer one
 * on a tie) whatever the order of the writes. pix gets each point's pixel, -1 when it was dropped, for the
 * back-projection of per-pixel labels. zbuf starts at 0xffffffff (empty). */
#define RANGE_STEPS_PER_M 250.0f
#define MAX_KEY_RANGE 0xffffu

__kernel void range_image_zbuf_packed_u32(const int npts, const int rows, const int cols,
                                          const float fov_up, const float fov_down,
                                          const float min_range, const float max_range,
                                          __global const float *xyz,
                                          __global const ushort *refl,
                                          __global uint *zbuf,
                                          __global int *pix)
{
    const int i = get_global_id(0);
    if (i >= npts)
        return;

    const float x = xyz[3 * i];
    const float y = xyz[3 * i + 1];
    const float z = xyz[3 * i + 2];
    const float r = sqrt(x * x + y * y + z * z);
    int p = -1;

    if (r >= min_range && r < max_range) { /* false for NaN too */
        const float yaw = atan2(y, x);
        const float pitch = asin(z / r);
        const float fov = fov_up - fov_down;
        const float u = 0.5f * (1.0f - yaw / M_PI_F) * (float)cols;
        const float v = (1.0f - (pitch - fov_down) / fov) * (float)rows;
        int col = (int)floor(u);
        const int row = (int)floor(v);
        if (col >= cols)
            col -= cols;
        if (col < 0)
            col = 0;
        if (row >= 0 && row < rows) {
            p = row * cols + col;
            const uint q = min((uint)(r * RANGE_STEPS_PER_M), MAX_KEY_RANGE);
            atomic_min(&zbuf[p], (q << 16) | (uint)refl[i]);
        }
    }
    pix[i] = p;
}
