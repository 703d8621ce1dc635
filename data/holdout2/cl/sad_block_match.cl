/* Full-search block matching for motion estimation: one work-item per 8x8 block of the current
 * frame tries every displacement in [-radius, radius]^2 of the reference frame (clamped at the
 * borders) and keeps the one with the smallest sum of absolute differences (first one on ties). */
#define BLK 8

__kernel void sad_block_match(const int width, const int height, const int radius,
                              __global const uchar *cur,
                              __global const uchar *ref,
                              __global int *best)
{
    const int bx = get_global_id(0);
    const int by = get_global_id(1);
    const int nbx = width / BLK;
    const int nby = height / BLK;
    if (bx >= nbx || by >= nby)
        return;

    const int x0 = bx * BLK;
    const int y0 = by * BLK;
    int best_sad = 0x7fffffff;
    int best_dx = 0;
    int best_dy = 0;
    for (int dy = -radius; dy <= radius; dy++) {
        for (int dx = -radius; dx <= radius; dx++) {
            int sad = 0;
            for (int j = 0; j < BLK; j++) {
                const int ry = clamp(y0 + j + dy, 0, height - 1);
                for (int i = 0; i < BLK; i++) {
                    const int rx = clamp(x0 + i + dx, 0, width - 1);
                    sad += abs((int)cur[(y0 + j) * width + x0 + i] - (int)ref[ry * width + rx]);
                }
            }
            if (sad < best_sad) {
                best_sad = sad;
                best_dx = dx;
                best_dy = dy;
            }
        }
    }
    const int b = by * nbx + bx;
    best[3 * b + 0] = best_dx;
    best[3 * b + 1] = best_dy;
    best[3 * b + 2] = best_sad;
}
