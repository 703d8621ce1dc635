#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Batched LU with partial pivoting of small dense blocks (the fronts of an elimination tree's leaves), LAPACK's
 * getf2 on n x n column-major matrices packed back to back. A work-group factors one matrix at a time, looping by
 * the number of groups, with the matrix held in __local memory. Step k: the pivot row p is the one of largest
 * |a(i, k)|, i >= k (the lowest such row on a tie), found by a __local (value, row) tree reduction; rows k and p
 * are swapped over all columns, the column below the pivot is divided by it and the trailing block gets the
 * rank-1 update. As in LAPACK, ipiv is 1-based, a zero pivot leaves its column unscaled and the factorization
 * goes on, and info is the first zero pivot's column (1-based), 0 when there is none. */
__kernel void getrf_pivot_batch_fp64(const int batch, const int n,
                                     __global double *a,
                                     __global int *ipiv,
                                     __global int *info,
                                     __local double *la,
                                     __local double *rmax,
                                     __local int *rrow)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int nn = n * n;

    for (int b = get_group_id(0); b < batch; b += get_num_groups(0)) {
        __global double *g = a + (size_t)b * nn;
        for (int e = lid; e < nn; e += lsz)
            la[e] = g[e];
        barrier(CLK_LOCAL_MEM_FENCE);

        int first_zero = 0;
        for (int k = 0; k < n; k++) {
            __local double *colk = la + k * n;
            double best = -1.0;
            int row = n;
            for (int i = k + lid; i < n; i += lsz) {
                const double v = fabs(colk[i]);
                if (v > best) {
                    best = v;
                    row = i;
                }
            }
            rmax[lid] = best;
            rrow[lid] = row;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = lsz / 2; s > 0; s >>= 1) {
                if (lid < s) {
                    const double o = rmax[lid + s];
                    const int orow = rrow[lid + s];
                    if (o > rmax[lid] || (o == rmax[lid] && orow < rrow[lid])) {
                        rmax[lid] = o;
                        rrow[lid] = orow;
                    }
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }

            const int p = rrow[0];
            if (p != k) {
                for (int j = lid; j < n; j += lsz) {
                    const double tmp = la[j * n + k];
                    la[j * n + k] = la[j * n + p];
                    la[j * n + p] = tmp;
                }
            }
            if (lid == 0)
                ipiv[(size_t)b * n + k] = p + 1;
            barrier(CLK_LOCAL_MEM_FENCE);

            const double piv = colk[k];
            if (piv != 0.0) {
                for (int i = k + 1 + lid; i < n; i += lsz)
                    colk[i] /= piv;
            } else if (first_zero == 0) {
                first_zero = k + 1;
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            const int m = n - k - 1;
            for (int e = lid; e < m * m; e += lsz) {
                const int j = k + 1 + e / m;
                const int i = k + 1 + e % m;
                la[j * n + i] -= colk[i] * la[j * n + k];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int e = lid; e < nn; e += lsz)
            g[e] = la[e];
        if (lid == 0)
            info[b] = first_zero;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
