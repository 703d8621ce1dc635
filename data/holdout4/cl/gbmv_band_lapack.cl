/* y = alpha A x + beta y for a square n x n band matrix with kl sub- and ku super-diagonals,
 * held in LAPACK general band storage: column j of A is column j of ab (leading dimension ldab,
 * ldab >= kl + ku + 1), with A(i, j) at row ku + i - j. One row of A per work-item; the loop runs
 * over the columns inside the band, so the first and last rows are shorter. */
__kernel void gbmv_band_lapack(const int n, const int kl, const int ku, const int ldab,
                               const float alpha, const float beta, __global const float *ab,
                               __global const float *x, __global float *y)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;

    const int jlo = max(0, i - kl);
    const int jhi = min(n - 1, i + ku);
    float acc = 0.0f;
    for (int j = jlo; j <= jhi; j++)
        acc += ab[(size_t)j * ldab + (ku + i - j)] * x[j];

    y[i] = alpha * acc + beta * y[i];
}
