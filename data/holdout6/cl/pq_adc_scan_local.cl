/* Product-quantization search (IVF-PQ style asymmetric distance computation): every database vector is
 * stored as nsub one-byte codes, one per subspace, and query q comes with a distance table of nsub x 256
 * entries (squared distance from the query's subvector to each centroid). The estimated distance of
 * vector n to query q is the sum over subspaces of table[m][code[m]]. The NDRange is (vector, query);
 * each work-group copies its query's table to __local memory first. */
#define NCENT 256

__kernel void pq_adc_scan_local(const int nvec,
                                const int nsub,
                                __global const uchar *codes,
                                __global const float *tables,
                                __global float *dist,
                                __local float *ltab)
{
    const int n = get_global_id(0);
    const int q = get_global_id(1);
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int nthreads = get_local_size(0) * get_local_size(1);

    const int tsize = nsub * NCENT;
    __global const float *tab = tables + (size_t)q * tsize;
    for (int i = lid; i < tsize; i += nthreads)
        ltab[i] = tab[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    if (n < nvec) {
        __global const uchar *c = codes + (size_t)n * nsub;
        float d = 0.0f;
        for (int m = 0; m < nsub; m++)
            d += ltab[m * NCENT + c[m]];
        dist[(size_t)q * nvec + n] = d;
    }
}
