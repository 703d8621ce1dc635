/* Viola-Jones style face-detector cascade on an integral image, one detection window per
 * work-item. Windows of win x win pixels sit on a grid of step pixels. Each weak classifier is a
 * Haar-like feature of up to three weighted rectangles, summed from the (width + 1) x (height + 1)
 * uint integral image with four lookups each; the feature value against the classifier's
 * threshold picks its left or right vote. A stage adds its classifiers' votes and rejects the
 * window when the sum is below the stage threshold, so most windows stop after a stage or two.
 * depth[w] is the number of stages passed (nstages: detected); score[w] the last stage's sum.
 * Feature layout (ints): 3 x (x, y, w, h, weight), then threshold, left vote, right vote. */
#define FEAT_INTS 18

uint rect_sum(__global const uint *ii, int stride, int x, int y, int w, int h)
{
    const int top = y * stride + x;
    const int bot = (y + h) * stride + x;
    return ii[bot + w] - ii[bot] - ii[top + w] + ii[top];
}

__kernel void haar_cascade_reject(const int width, const int height, const int win, const int step,
                                  const int nstages,
                                  __global const uint *integral,
                                  __global const int *features,
                                  __global const int *stage_len,
                                  __global const int *stage_thresh,
                                  __global int *depth,
                                  __global int *score)
{
    const int nx = (width - win) / step + 1;
    const int ny = (height - win) / step + 1;
    const int w = get_global_id(0);
    if (w >= nx * ny)
        return;
    const int stride = width + 1;
    const int wx = (w % nx) * step;
    const int wy = (w / nx) * step;

    int f = 0;
    int s = 0;
    int sum = 0;
    for (; s < nstages; s++) {
        sum = 0;
        const int fend = f + stage_len[s];
        for (; f < fend; f++) {
            __global const int *ft = features + f * FEAT_INTS;
            int val = 0;
            for (int r = 0; r < 3; r++) {
                const int wt = ft[5 * r + 4];
                if (wt == 0)
                    break;
                val += wt * (int)rect_sum(integral, stride, wx + ft[5 * r], wy + ft[5 * r + 1],
                                          ft[5 * r + 2], ft[5 * r + 3]);
            }
            sum += val < ft[15] ? ft[16] : ft[17];
        }
        if (sum < stage_thresh[s])
            break;
    }
    depth[w] = s;
    score[w] = sum;
}
