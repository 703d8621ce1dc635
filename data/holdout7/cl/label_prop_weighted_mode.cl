/* One synchronous sweep of weighted label propagation (community detection). Every vertex takes the label
 * with the largest total edge weight among its neighbours, the smallest such label on a tie, and keeps its
 * own label when it has no neighbours. Labels are counted without extra memory: each distinct label of the
 * neighbour list is summed over the rest of the list the first time it is met. */
__kernel void label_prop_weighted_mode(const int n,
                                       __global const int *row_ptr,
                                       __global const int *col_idx,
                                       __global const float *weight,
                                       __global const int *label_in,
                                       __global int *label_out,
                                       __global float *label_score)
{
    const int v = get_global_id(0);
    if (v >= n)
        return;

    const int begin = row_ptr[v], end = row_ptr[v + 1];
    int best_label = label_in[v];
    float best = 0.0f;
    for (int i = begin; i < end; i++) {
        const int li = label_in[col_idx[i]];
        int seen = 0;
        for (int j = begin; j < i; j++) {
            if (label_in[col_idx[j]] == li) {
                seen = 1;
                break;
            }
        }
        if (seen)
            continue;
        float s = weight[i];
        for (int j = i + 1; j < end; j++)
            if (label_in[col_idx[j]] == li)
                s += weight[j];
        if (s > best || (s == best && li < best_label)) {
            best = s;
            best_label = li;
        }
    }
    label_out[v] = best_label;
    label_score[v] = best;
}
