/* Top-k per segment: the k best-scored items of every user of a recommendation table whose rows are
 * grouped by user (rows seg_ptr[s] .. seg_ptr[s+1]-1 belong to user s). One work-item per user keeps
 * its best k so far in private arrays sorted by descending score and inserts a better row by shifting
 * the worse ones down; on equal scores the earlier row stays ahead. Users with fewer than k rows are
 * padded with score 0 and item -1. k is at most MAX_K. */
#define MAX_K 16

__kernel void topk_segment_insert(const int nseg, const int k,
                                  __global const int *seg_ptr,
                                  __global const float *score,
                                  __global const int *item,
                                  __global float *top_score,
                                  __global int *top_item)
{
    const int s = get_global_id(0);
    if (s >= nseg)
        return;

    float best[MAX_K];
    int best_item[MAX_K];
    int filled = 0;

    const int end = seg_ptr[s + 1];
    for (int j = seg_ptr[s]; j < end; j++) {
        const float v = score[j];
        if (filled == k && v <= best[k - 1])
            continue;
        int pos;
        if (filled < k)
            pos = filled++;
        else
            pos = k - 1;
        while (pos > 0 && best[pos - 1] < v) {
            best[pos] = best[pos - 1];
            best_item[pos] = best_item[pos - 1];
            pos--;
        }
        best[pos] = v;
        best_item[pos] = item[j];
    }

    for (int r = 0; r < k; r++) {
        top_score[s * k + r] = r < filled ? best[r] : 0.0f;
        top_item[s * k + r] = r < filled ? best_item[r] : -1;
    }
}
