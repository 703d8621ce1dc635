/* SYRK tile update: lower triangle of C (n x n) -= A (n x k) * A^T; the upper triangle is not touched.
 * Signature: void syrk_<variant>_<s|d>(int n, int k, const REAL *A, int lda, REAL *C, int ldc) */
#include "kg_c.h"

void FN(syrk_naive)(int n, int k, const REAL *A, int lda, REAL *C, int ldc) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            REAL s = 0;
            for (int p = 0; p < k; p++) s += A[i + p * lda] * A[j + p * lda];
            C[i + j * ldc] -= s;
        }
}

void FN(syrk_vec)(int n, int k, const REAL *restrict A, int lda, REAL *restrict C, int ldc) {
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            const REAL b = A[j + p * lda];
            const REAL *restrict a = A + (long)p * lda;
            REAL *restrict c = C + (long)j * ldc;
#pragma omp simd
            for (int i = j; i < n; i++) c[i] -= a[i] * b;
        }
}

void FN(syrk_blocked)(int n, int k, const REAL *restrict A, int lda, REAL *restrict C, int ldc) {
    for (int jj = 0; jj < n; jj += KG_NB)
        for (int pp = 0; pp < k; pp += KG_NB)
            for (int ii = jj; ii < n; ii += KG_NB) {
                const int je = KG_MIN(jj + KG_NB, n), pe = KG_MIN(pp + KG_NB, k), ie = KG_MIN(ii + KG_NB, n);
                for (int j = jj; j < je; j++)
                    for (int p = pp; p < pe; p++) {
                        const REAL b = A[j + p * lda];
                        const REAL *restrict a = A + (long)p * lda;
                        REAL *restrict c = C + (long)j * ldc;
                        const int is = ii > j ? ii : j;
#pragma omp simd
                        for (int i = is; i < ie; i++) c[i] -= a[i] * b;
                    }
            }
}

void FN(syrk_omp)(int n, int k, const REAL *restrict A, int lda, REAL *restrict C, int ldc) {
#pragma omp parallel for schedule(dynamic, 8)
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) {
            const REAL b = A[j + p * lda];
            const REAL *restrict a = A + (long)p * lda;
            REAL *restrict c = C + (long)j * ldc;
#pragma omp simd
            for (int i = j; i < n; i++) c[i] -= a[i] * b;
        }
}
