/* Stereo matching on census-transformed images: each pixel of the left and right images holds a
 * 24-bit census signature (5x5 neighbourhood compared with the centre). For a pixel of the left
 * image the matching cost at disparity d is the Hamming distance, popcount(L ^ R), summed over a
 * (2 * agg + 1)^2 window against the right image shifted by d; the winner takes all (the lowest
 * cost, the smallest d on ties). Disparities run from 0 to ndisp - 1 while the window stays in the
 * image; pixels within agg of the top, bottom or left border, or with no valid disparity, get -1. */
__kernel void census_wta_disparity(const int width, const int height, const int ndisp, const int agg,
                                   __global const uint *left,
                                   __global const uint *right,
                                   __global int *disp,
                                   __global uint *cost)
{
    const int gid = get_global_id(0);
    if (gid >= width * height)
        return;
    const int x = gid % width;
    const int y = gid / width;

    int best_d = -1;
    uint best = 0xffffffffu;
    if (y >= agg && y < height - agg && x < width - agg) {
        for (int d = 0; d < ndisp && x - d - agg >= 0; d++) {
            uint c = 0;
            for (int dy = -agg; dy <= agg; dy++) {
                const int row = (y + dy) * width;
                for (int dx = -agg; dx <= agg; dx++)
                    c += popcount(left[row + x + dx] ^ right[row + x + dx - d]);
            }
            if (c < best) {
                best = c;
                best_d = d;
            }
        }
    }
    disp[gid] = best_d;
    cost[gid] = best;
}
