/* Smith-Waterman local alignment score of short reads against their candidate reference windows
 * (seed-and-extend read mapping). Each work-item aligns one read of read_len bases to the win_len bases of
 * the reference starting at win_start[r], with affine gaps (Gotoh): a gap of length k costs
 * gap_open + (k - 1) * gap_ext. One row of H and E is kept in private arrays; F runs along the row.
 * Out: the best local score and the reference position (within the window) where it ends. */
#define MAX_WIN 256

__kernel void sw_affine_window(const int nreads,
                               const int read_len,
                               const int win_len,
                               const int match,
                               const int mismatch,
                               const int gap_open,
                               const int gap_ext,
                               __global const uchar *reads,
                               __global const uchar *ref,
                               __global const int *win_start,
                               __global int *score,
                               __global int *end_pos)
{
    const int r = get_global_id(0);
    if (r >= nreads)
        return;

    __global const uchar *q = reads + (size_t)r * read_len;
    __global const uchar *t = ref + win_start[r];

    int H[MAX_WIN + 1];
    int E[MAX_WIN + 1];
    for (int j = 0; j <= win_len; j++) {
        H[j] = 0;
        E[j] = -gap_open;
    }

    int best = 0, best_j = -1;
    for (int i = 0; i < read_len; i++) {
        const uchar a = q[i];
        int diag = 0;      /* H[i-1][j-1] */
        int F = -gap_open; /* gap along the reference */
        int left = 0;      /* H[i][j-1] */
        for (int j = 1; j <= win_len; j++) {
            const uchar b = t[j - 1];
            const int s = (a == b && a != 'N') ? match : mismatch;
            const int up = H[j];
            E[j] = max(E[j] - gap_ext, up - gap_open);
            F = max(F - gap_ext, left - gap_open);
            int h = max(diag + s, max(E[j], F));
            h = max(h, 0);
            diag = up;
            H[j] = h;
            left = h;
            if (h > best) {
                best = h;
                best_j = j - 1;
            }
        }
    }
    score[r] = best;
    end_pos[r] = best_j;
}
