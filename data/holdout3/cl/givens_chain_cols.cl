/* Applies a chain of plane (Givens) rotations to each matrix of a batch from the left:
 * rotation k (c_k, s_k) mixes rows k and k+1, k = 0 .. nrows-2, in that order
 * (the Q^T of a Hessenberg QR sweep). Matrices are nrows x ncols, row-major, one after another;
 * rotations are stored as (c, s) pairs, nrows-1 of them per matrix.
 * Work-item (j, m) walks column j of matrix m down the chain, carrying the lower row in a register. */
__kernel void givens_chain_cols(const int nrows, const int ncols, __global const float *cs, __global float *mats)
{
    int j = get_global_id(0);
    int m = get_global_id(1);
    if (j >= ncols)
        return;

    __global float *a = mats + (size_t)m * nrows * ncols;
    __global const float *g = cs + 2 * m * (nrows - 1);

    float top = a[j];
    for (int k = 0; k < nrows - 1; k++) {
        float c = g[2 * k];
        float s = g[2 * k + 1];
        float bot = a[(k + 1) * ncols + j];
        a[k * ncols + j] = c * top + s * bot;
        top = c * bot - s * top;
    }
    a[(nrows - 1) * ncols + j] = top;
}
