/* Gradient-boosted tree ensemble inference (binary classification, XGBoost-style model). Sample i's
 * nfeat features are row i of x; a missing feature is NaN. The trees' nodes are stored one array per
 * field: a split node tests x[feat] < thresh and goes to its left child (node_left) or to the right one
 * (node_left + 1); a missing value follows the node's default direction. A leaf has feature -1 and its
 * value in node_value. Work-item i walks every tree from its root and sums the leaves it reaches. */
__kernel void gbdt_forest_predict(const int nsamples,
                                  const int nfeat,
                                  const int ntrees,
                                  const float base_score,
                                  __global const float *x,
                                  __global const int *tree_root,
                                  __global const int *node_feat,
                                  __global const float *node_thresh,
                                  __global const int *node_left,
                                  __global const uchar *node_default_left,
                                  __global const float *node_value,
                                  __global float *margin,
                                  __global float *prob)
{
    const int i = get_global_id(0);
    if (i >= nsamples)
        return;

    __global const float *row = x + (size_t)i * nfeat;
    float sum = base_score;
    for (int t = 0; t < ntrees; t++) {
        int node = tree_root[t];
        int f = node_feat[node];
        while (f >= 0) {
            const float v = row[f];
            int go_left;
            if (isnan(v))
                go_left = node_default_left[node];
            else
                go_left = v < node_thresh[node];
            node = go_left ? node_left[node] : node_left[node] + 1;
            f = node_feat[node];
        }
        sum += node_value[node];
    }
    margin[i] = sum;
    prob[i] = 1.0f / (1.0f + exp(-sum));
}
