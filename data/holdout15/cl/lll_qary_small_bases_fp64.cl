#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF /* the same roundings as a plain C reference, for reproducible decisions */
/* LLL reduction of many small lattice bases in double precision (e.g. the many small q-ary / knapsack lattices of
 * a hidden-number or small-root attack). A work-item per basis of n <= 8 integer vectors of dimension n (int32,
 * row-major): the textbook floating-point LLL with Gram-Schmidt coefficients mu and squared norms B of the
 * orthogonalised vectors in private arrays. At index k the vector is size-reduced against b[k-1] .. b[0]
 * (rounding mu to the nearest integer); if the Lovasz condition B[k] >= (delta - mu[k][k-1]^2) B[k-1] holds k
 * advances, otherwise b[k] and b[k-1] swap, the Gram-Schmidt data is recomputed from k-1 on and k steps back.
 * The loop stops at k = n or after max_iter steps. Out: the reduced basis, the squared norm of its first vector
 * and the number of swaps. */
#define MAXN 8

void gso_from(const int n, const int start, double b[MAXN][MAXN], double bs[MAXN][MAXN],
              double mu[MAXN][MAXN], double *bn)
{
    for (int i = start; i < n; ++i) {
        for (int c = 0; c < n; ++c)
            bs[i][c] = b[i][c];
        for (int j = 0; j < i; ++j) {
            double d = 0.0;
            for (int c = 0; c < n; ++c)
                d += b[i][c] * bs[j][c];
            mu[i][j] = d / bn[j];
            for (int c = 0; c < n; ++c)
                bs[i][c] -= mu[i][j] * bs[j][c];
        }
        double s = 0.0;
        for (int c = 0; c < n; ++c)
            s += bs[i][c] * bs[i][c];
        bn[i] = s;
    }
}

__kernel void lll_qary_small_bases_fp64(const int nbases, const int n, const int max_iter, const double delta,
                                        __global const int *basis_in,
                                        __global int *basis_out,
                                        __global double *norm0,
                                        __global int *nswaps)
{
    const int id = get_global_id(0);
    if (id >= nbases)
        return;

    double b[MAXN][MAXN], bs[MAXN][MAXN], mu[MAXN][MAXN], bn[MAXN];
    __global const int *src = basis_in + (size_t)id * n * n;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < n; ++c)
            b[i][c] = (double)src[i * n + c];
    gso_from(n, 0, b, bs, mu, bn);

    int k = 1, it = 0, swaps = 0;
    while (k < n && it < max_iter) {
        it++;
        for (int j = k - 1; j >= 0; --j) {
            const double q = rint(mu[k][j]);
            if (q != 0.0) {
                for (int c = 0; c < n; ++c)
                    b[k][c] -= q * b[j][c];
                for (int l = 0; l < j; ++l)
                    mu[k][l] -= q * mu[j][l];
                mu[k][j] -= q;
            }
        }
        const double m = mu[k][k - 1];
        if (bn[k] >= (delta - m * m) * bn[k - 1]) {
            k++;
        } else {
            for (int c = 0; c < n; ++c) {
                const double t = b[k][c];
                b[k][c] = b[k - 1][c];
                b[k - 1][c] = t;
            }
            swaps++;
            gso_from(n, k - 1, b, bs, mu, bn);
            k = k > 1 ? k - 1 : 1;
        }
    }

    __global int *dst = basis_out + (size_t)id * n * n;
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < n; ++c)
            dst[i * n + c] = (int)b[i][c];
    for (int c = 0; c < n; ++c)
        s += b[0][c] * b[0][c];
    norm0[id] = s;
    nswaps[id] = swaps;
}
