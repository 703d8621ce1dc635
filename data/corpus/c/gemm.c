/* GEMM tile update of a Cholesky/LU solver: C (m x n) -= A (m x k) * B (n x k)^T.
 * Signature: void gemm_<variant>_<s|d>(int m, int n, int k, const REAL *A, int lda,
 *                                      const REAL *B, int ldb, REAL *C, int ldc)        */
#include "kg_c.h"

/* plain loops: dot products, strided inner loop over k */
void FN(gemm_naive)(int m, int n, int k, const REAL *A, int lda, const REAL *B, int ldb, REAL *C, int ldc) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            REAL s = 0;
            for (int p = 0; p < k; p++) s += A[i + p * lda] * B[j + p * ldb];
            C[i + j * ldc] -= s;
        }
}

/* vectorisable: j-p-i order, contiguous inner loop (axpy on a column of C) */
void FN(gemm_vec)(int m, int n, int k, const REAL *restrict A, int lda, const REAL *restrict B, int ldb,
                  REAL *restrict C, int ldc) {
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            const REAL b = B[j + p * ldb];
            const REAL *restrict a = A + (long)p * lda;
            REAL *restrict c = C + (long)j * ldc;
#pragma omp simd
            for (int i = 0; i < m; i++) c[i] -= a[i] * b;
        }
}

/* blocked: KG_NB^3 cache blocks, vectorisable inner loop */
void FN(gemm_blocked)(int m, int n, int k, const REAL *restrict A, int lda, const REAL *restrict B, int ldb,
                      REAL *restrict C, int ldc) {
    for (int jj = 0; jj < n; jj += KG_NB)
        for (int pp = 0; pp < k; pp += KG_NB)
            for (int ii = 0; ii < m; ii += KG_NB) {
                const int je = KG_MIN(jj + KG_NB, n), pe = KG_MIN(pp + KG_NB, k), ie = KG_MIN(ii + KG_NB, m);
                for (int j = jj; j < je; j++)
                    for (int p = pp; p < pe; p++) {
                        const REAL b = B[j + p * ldb];
                        const REAL *restrict a = A + (long)p * lda;
                        REAL *restrict c = C + (long)j * ldc;
#pragma omp simd
                        for (int i = ii; i < ie; i++) c[i] -= a[i] * b;
                    }
            }
}

/* OpenMP: the vectorisable order, columns of C shared among threads */
void FN(gemm_omp)(int m, int n, int k, const REAL *restrict A, int lda, const REAL *restrict B, int ldb,
                  REAL *restrict C, int ldc) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            const REAL b = B[j + p * ldb];
            const REAL *restrict a = A + (long)p * lda;
            REAL *restrict c = C + (long)j * ldc;
#pragma omp simd
            for (int i = 0; i < m; i++) c[i] -= a[i] * b;
        }
}
