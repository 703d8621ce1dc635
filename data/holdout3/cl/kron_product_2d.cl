/* Kronecker product C = A (x) B with A p x p and B q x q (row-major), C (p*q) x (p*q).
 * One work-item per element of C: block (row / q, col / q) of A times entry (row % q, col % q) of B. */
__kernel void kron_product_2d(const int p, const int q, __global const float *a, __global const float *b,
                              __global float *c)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    int nc = p * q;
    if (col >= nc || row >= nc)
        return;

    int ia = row / q;
    int ib = row % q;
    int ja = col / q;
    int jb = col % q;
    c[row * nc + col] = a[ia * p + ja] * b[ib * q + jb];
}
