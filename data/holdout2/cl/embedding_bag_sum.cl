/* Sum-pooled embedding bags (a recommender model's lookup): output row b is the sum of bag_len
 * rows of the embedding table, picked by indices[b * bag_len + k]. Work-item (f, b) computes
 * feature f of bag b, so a work-group reads whole table rows. */
__kernel void embedding_bag_sum(const int dim, const int bag_len,
                                __global const int *indices,
                                __global const float *table,
                                __global float *out)
{
    const int f = get_global_id(0);
    const int b = get_global_id(1);

    float acc = 0.0f;
    for (int k = 0; k < bag_len; k++) {
        const int row = indices[b * bag_len + k];
        acc += table[row * dim + f];
    }
    out[b * dim + f] = acc;
}
