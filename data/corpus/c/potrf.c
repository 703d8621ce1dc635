/* POTRF: lower Cholesky factor of an SPD tile in place, A (n x n) = L L^T; only the lower triangle is
 * read and written. Signature: void potrf_<variant>_<s|d>(int n, REAL *A, int lda) */
#include "kg_c.h"

/* plain loops: Cholesky-Crout, dot products along rows */
void FN(potrf_naive)(int n, REAL *A, int lda) {
    for (int j = 0; j < n; j++) {
        REAL s = A[j + j * lda];
        for (int p = 0; p < j; p++) s -= A[j + p * lda] * A[j + p * lda];
        const REAL d = KG_SQRT(s);
        A[j + j * lda] = d;
        for (int i = j + 1; i < n; i++) {
            REAL t = A[i + j * lda];
            for (int p = 0; p < j; p++) t -= A[i + p * lda] * A[j + p * lda];
            A[i + j * lda] = t / d;
        }
    }
}

/* right-looking on columns j0..j1 of the lower triangle, trailing update restricted to columns < j1 */
static void FN(potrf_cols)(int n, int j0, int j1, REAL *restrict A, int lda) {
    for (int j = j0; j < j1; j++) {
        REAL *restrict aj = A + (long)j * lda;
        const REAL d = KG_SQRT(aj[j]);
        aj[j] = d;
        const REAL r = 1 / d;
#pragma omp simd
        for (int i = j + 1; i < n; i++) aj[i] *= r;
        for (int q = j + 1; q < j1; q++) {
            const REAL l = aj[q];
            REAL *restrict aq = A + (long)q * lda;
#pragma omp simd
            for (int i = q; i < n; i++) aq[i] -= aj[i] * l;
        }
    }
}

void FN(potrf_vec)(int n, REAL *restrict A, int lda) { FN(potrf_cols)(n, 0, n, A, lda); }

/* trailing update of columns q in [q0, n) by the factored columns [j0, j1) */
static inline void FN(potrf_update_col)(int n, int j0, int j1, int q, REAL *restrict A, int lda) {
    REAL *restrict aq = A + (long)q * lda;
    for (int j = j0; j < j1; j++) {
        const REAL *restrict aj = A + (long)j * lda;
        const REAL l = aj[q];
#pragma omp simd
        for (int i = q; i < n; i++) aq[i] -= aj[i] * l;
    }
}

/* blocked right-looking: factor a KG_NB panel, then update the trailing matrix column by column */
void FN(potrf_blocked)(int n, REAL *restrict A, int lda) {
    for (int jj = 0; jj < n; jj += KG_NB) {
        const int je = KG_MIN(jj + KG_NB, n);
        FN(potrf_cols)(n, jj, je, A, lda);
        for (int q = je; q < n; q++) FN(potrf_update_col)(n, jj, je, q, A, lda);
    }
}

void FN(potrf_omp)(int n, REAL *restrict A, int lda) {
    for (int jj = 0; jj < n; jj += KG_NB) {
        const int je = KG_MIN(jj + KG_NB, n);
        FN(potrf_cols)(n, jj, je, A, lda);
#pragma omp parallel for schedule(dynamic, 4)
        for (int q = je; q < n; q++) FN(potrf_update_col)(n, jj, je, q, A, lda);
    }
}
