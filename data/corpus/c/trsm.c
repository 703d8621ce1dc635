/* TRSM panel of a Cholesky factorisation: B (m x n) := B * L^{-T}, L (n x n) lower triangular
 * (solve X L^T = B in place; the upper triangle of L is not read).
 * Signature: void trsm_<variant>_<s|d>(int m, int n, const REAL *L, int ldl, REAL *B, int ldb) */
#include "kg_c.h"

void FN(trsm_naive)(int m, int n, const REAL *L, int ldl, REAL *B, int ldb) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            REAL s = B[i + j * ldb];
            for (int p = 0; p < j; p++) s -= B[i + p * ldb] * L[j + p * ldl];
            B[i + j * ldb] = s / L[j + j * ldl];
        }
}

static void FN(trsm_rows)(int i0, int i1, int n, const REAL *restrict L, int ldl, REAL *restrict B, int ldb) {
    for (int j = 0; j < n; j++) {
        REAL *restrict bj = B + (long)j * ldb;
        for (int p = 0; p < j; p++) {
            const REAL l = L[j + p * ldl];
            const REAL *restrict bp = B + (long)p * ldb;
#pragma omp simd
            for (int i = i0; i < i1; i++) bj[i] -= bp[i] * l;
        }
        const REAL d = L[j + j * ldl];
#pragma omp simd
        for (int i = i0; i < i1; i++) bj[i] /= d;
    }
}

void FN(trsm_vec)(int m, int n, const REAL *restrict L, int ldl, REAL *restrict B, int ldb) {
    FN(trsm_rows)(0, m, n, L, ldl, B, ldb);
}

/* blocked: row blocks of B stay in cache while the whole triangle is applied */
void FN(trsm_blocked)(int m, int n, const REAL *restrict L, int ldl, REAL *restrict B, int ldb) {
    for (int ii = 0; ii < m; ii += KG_NB) FN(trsm_rows)(ii, KG_MIN(ii + KG_NB, m), n, L, ldl, B, ldb);
}

void FN(trsm_omp)(int m, int n, const REAL *restrict L, int ldl, REAL *restrict B, int ldb) {
#pragma omp parallel for schedule(static)
    for (int ii = 0; ii < m; ii += KG_NB) FN(trsm_rows)(ii, KG_MIN(ii + KG_NB, m), n, L, ldl, B, ldb);
}
