/* Read-mapping verification: every candidate location a seeding step found for a read is checked by a banded
 * edit distance (Ukkonen band of half-width band around the seed's diagonal), on a 2-D NDRange (candidate slot,
 * read). Read r (read_len ASCII bases) is aligned from its first base to reference position cand_pos[r * ncand
 * + c] onwards, globally in the read and with a free end in the reference (semi-global): the distance is the
 * smallest D(read_len, j) over the band's last row. A base N (in read or reference) is a mismatch. One row of
 * the band lives in a private array indexed by diagonal, updated in place. Once every cell of a row exceeds
 * max_ed the candidate is given up (a row's minimum never decreases). Out: the distance (max_ed + 1 when given
 * up or above max_ed) and the reference length the alignment used (-1 when given up); slots beyond the read's
 * cand_count get -1 in both. */
#define MAX_BAND 16
#define BIG 0x3fffffff

__kernel void banded_ed_verify_cands_2d(const int nread, const int ncand, const int read_len,
                                        const int band, const int max_ed,
                                        __global const uchar *reads,
                                        __global const uchar *genome,
                                        __global const int *cand_pos,
                                        __global const int *cand_count,
                                        __global int *edit_dist,
                                        __global int *ref_span)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    if (c >= ncand || r >= nread)
        return;

    const int slot = r * ncand + c;
    if (c >= cand_count[r]) {
        edit_dist[slot] = -1;
        ref_span[slot] = -1;
        return;
    }

    __global const uchar *rd = reads + (size_t)r * read_len;
    __global const uchar *ref = genome + cand_pos[slot];
    const int width = 2 * band + 1;
    int dp[2 * MAX_BAND + 1];

    /* row 0: D(0, j) = j for j = 0 .. band; diagonal k holds column j = i + k - band */
    for (int k = 0; k < width; k++)
        dp[k] = (k >= band) ? k - band : BIG;

    int gave_up = 0;
    for (int i = 1; i <= read_len; i++) {
        const uchar a = rd[i - 1];
        int row_min = BIG;
        for (int k = max(0, band - i); k < width; k++) {
            const int j = i + k - band;
            int v;
            if (j == 0) {
                v = i;
            } else {
                const uchar b = ref[j - 1];
                const int sub = (a == b && a != 'N') ? 0 : 1;
                v = dp[k] + sub;                                  /* D(i-1, j-1) */
                if (k + 1 < width)
                    v = min(v, dp[k + 1] + 1);                    /* D(i-1, j)   */
                if (k > 0)
                    v = min(v, dp[k - 1] + 1);                    /* D(i, j-1)   */
            }
            dp[k] = min(v, BIG);
            row_min = min(row_min, dp[k]);
        }
        if (row_min > max_ed) {
            gave_up = 1;
            break;
        }
    }

    int dist = max_ed + 1, span = -1;
    if (!gave_up) {
        for (int k = 0; k < width; k++) {
            if (dp[k] < dist) {
                dist = dp[k];
                span = read_len + k - band;
            }
        }
    }
    edit_dist[slot] = dist;
    ref_span[slot] = span;
}
