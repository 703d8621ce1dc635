/* COO sparse matrix-vector product y += A * x, one work-item per stored entry (row, col, val).
 * OpenCL 1.2 has no atomic add for float, so each product goes into y[row] through the usual
 * compare-and-swap loop on the 32-bit pattern of the float. */
inline void atomic_add_float(volatile __global float *addr, float val)
{
    union {
        unsigned int u;
        float f;
    } old_val, new_val;
    do {
        old_val.f = *addr;
        new_val.f = old_val.f + val;
    } while (atomic_cmpxchg((volatile __global unsigned int *)addr, old_val.u, new_val.u) != old_val.u);
}

__kernel void coo_spmv_cas_float(const int nnz,
                                 __global const int *row_idx,
                                 __global const int *col_idx,
                                 __global const float *vals,
                                 __global const float *x,
                                 __global float *y)
{
    const int k = get_global_id(0);
    if (k >= nnz)
        return;

    const float prod = vals[k] * x[col_idx[k]];
    atomic_add_float(&y[row_idx[k]], prod);
}
