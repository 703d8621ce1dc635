/* Row interchanges of a right-looking LU with partial pivoting, as getrf applies them after factoring a panel
 * (LAPACK's laswp, forward): the panel's rows k1 .. k2 - 1 were swapped inside the panel by its factorization, and
 * the same interchanges, in order, now go to the columns left of the panel (the L computed so far) and to the
 * columns right of it (the trailing matrix). The matrix is column-major, nrow x ncol with leading dimension lda;
 * ipiv[k] is the 1-based row that row k (0-based) was swapped with. A work-item per column; the panel's own
 * columns leave at once. */
__kernel void laswp_outer_panels(const int ncol, const int lda, const int k1, const int k2,
                                 __global float *a,
                                 __global const int *ipiv)
{
    const int j = get_global_id(0);
    if (j >= ncol || (j >= k1 && j < k2))
        return;

    __global float *col = a + (size_t)j * lda;
    for (int k = k1; k < k2; k++) {
        const int p = ipiv[k] - 1;
        if (p != k) {
            const float tmp = col[k];
            col[k] = col[p];
            col[p] = tmp;
        }
    }
}
