/* GETRF panel without pivoting (inputs are diagonally dominant): A (m x n, m >= n) = L U in place,
 * L unit lower (below the diagonal), U upper. Signature: void getrf_<variant>_<s|d>(int m, int n, REAL *A, int lda) */
#include "kg_c.h"

/* plain loops: left-looking Doolittle, dot products */
void FN(getrf_naive)(int m, int n, REAL *A, int lda) {
    for (int j = 0; j < n; j++) {
        for (int i = 0; i <= j && i < m; i++) {
            REAL s = A[i + j * lda];
            for (int p = 0; p < i; p++) s -= A[i + p * lda] * A[p + j * lda];
            A[i + j * lda] = s;
        }
        const REAL d = A[j + j * lda];
        for (int i = j + 1; i < m; i++) {
            REAL s = A[i + j * lda];
            for (int p = 0; p < j; p++) s -= A[i + p * lda] * A[p + j * lda];
            A[i + j * lda] = s / d;
        }
    }
}

/* right-looking on columns [j0, j1): scale column j, update columns (j, j1) */
static void FN(getrf_cols)(int m, int j0, int j1, REAL *restrict A, int lda) {
    for (int j = j0; j < j1; j++) {
        REAL *restrict aj = A + (long)j * lda;
        const REAL r = 1 / aj[j];
#pragma omp simd
        for (int i = j + 1; i < m; i++) aj[i] *= r;
        for (int q = j + 1; q < j1; q++) {
            REAL *restrict aq = A + (long)q * lda;
            const REAL u = aq[j];
#pragma omp simd
            for (int i = j + 1; i < m; i++) aq[i] -= aj[i] * u;
        }
    }
}

void FN(getrf_vec)(int m, int n, REAL *restrict A, int lda) { FN(getrf_cols)(m, 0, n, A, lda); }

/* column q (>= j1) updated by the factored panel [j0, j1): U part by forward substitution, then the rest */
static inline void FN(getrf_update_col)(int m, int j0, int j1, int q, REAL *restrict A, int lda) {
    REAL *restrict aq = A + (long)q * lda;
    for (int j = j0; j < j1; j++) {
        const REAL *restrict aj = A + (long)j * lda;
        const REAL u = aq[j];
#pragma omp simd
        for (int i = j + 1; i < m; i++) aq[i] -= aj[i] * u;
    }
}

void FN(getrf_blocked)(int m, int n, REAL *restrict A, int lda) {
    for (int jj = 0; jj < n; jj += KG_NB) {
        const int je = KG_MIN(jj + KG_NB, n);
        FN(getrf_cols)(m, jj, je, A, lda);
        for (int q = je; q < n; q++) FN(getrf_update_col)(m, jj, je, q, A, lda);
    }
}

void FN(getrf_omp)(int m, int n, REAL *restrict A, int lda) {
    for (int jj = 0; jj < n; jj += KG_NB) {
        const int je = KG_MIN(jj + KG_NB, n);
        FN(getrf_cols)(m, jj, je, A, lda);
#pragma omp parallel for schedule(dynamic, 4)
        for (int q = je; q < n; q++) FN(getrf_update_col)(m, jj, je, q, A, lda);
    }
}
