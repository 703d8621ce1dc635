#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Blocked LDL^T of one supernode without pivoting (a quasi-definite KKT block ordered so that 1 x 1 pivots do):
 * the panel of columns k0 .. k0 + nb - 1 has been factored in place, D on its diagonal and the unit L below it.
 * This kernel brings the trailing columns k0 + nb .. ncol - 1 of the nrow x ncol column-major supernode up to
 * date, A(i, j) -= sum_k L(i, k) D(k) L(j, k), on and below the diagonal only; rows ncol .. nrow - 1 are the
 * off-diagonal block that will go to the parent front, so the updated region is a trapezoid. 2-D NDRange over
 * (trailing row, trailing column), dim 0 the row so that a work-group reads each panel column contiguously;
 * items above the diagonal leave. */
__kernel void ldlt_trailing_trapezoid_fp64(const int nrow, const int ncol, const int lda, const int k0, const int nb,
                                           __global double *a)
{
    const int c0 = k0 + nb;
    const int i = c0 + get_global_id(0);
    const int j = c0 + get_global_id(1);
    if (i >= nrow || j >= ncol || i < j)
        return;

    double acc = 0.0;
    for (int k = k0; k < c0; k++) {
        __global const double *col = a + (size_t)k * lda;
        const double dk = col[k];
        acc += col[i] * dk * col[j];
    }
    a[(size_t)j * lda + i] -= acc;
}
