#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* One-qubit noise channel on a density matrix in double precision: rho' = sum_k K_k rho K_k^dagger, with nkraus
 * 2x2 complex Kraus operators acting on qubit q of an nq-qubit register (dim = 2^nq, rho row-major, complex as
 * double2). A 2-D NDRange, a work-item per element (column c, row r): with br, bc the target bits of r and c, the
 * element needs the 2x2 block rho[r0 | a m][c0 | b m] (m = 1 << q, r0 / c0 the row / column with bit q cleared),
 * and rho'[r][c] = sum_k sum_a sum_b K_k[br][a] rho[a][b] conj(K_k[bc][b]). Out of place. */
double2 zmul(const double2 a, const double2 b)
{
    return (double2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

double2 zmulc(const double2 a, const double2 b) /* a * conj(b) */
{
    return (double2)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

__kernel void dm_kraus1q_channel_2d_fp64(const int dim, const int q, const int nkraus,
                                         __global const double2 *kraus,
                                         __global const double2 *rho_in,
                                         __global double2 *rho_out)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    if (c >= dim || r >= dim)
        return;

    const int m = 1 << q;
    const int br = (r >> q) & 1;
    const int bc = (c >> q) & 1;
    const size_t r0 = (size_t)(r & ~m) * dim;
    const size_t r1 = (size_t)(r | m) * dim;
    const int c0 = c & ~m;
    const int c1 = c | m;

    const double2 g00 = rho_in[r0 + c0];
    const double2 g01 = rho_in[r0 + c1];
    const double2 g10 = rho_in[r1 + c0];
    const double2 g11 = rho_in[r1 + c1];

    double2 acc = (double2)(0.0, 0.0);
    for (int k = 0; k < nkraus; ++k) {
        const double2 ka0 = kraus[4 * k + 2 * br];      /* K[br][0] */
        const double2 ka1 = kraus[4 * k + 2 * br + 1];  /* K[br][1] */
        const double2 kb0 = kraus[4 * k + 2 * bc];      /* K[bc][0] */
        const double2 kb1 = kraus[4 * k + 2 * bc + 1];  /* K[bc][1] */
        const double2 t0 = zmul(ka0, g00) + zmul(ka1, g10);
        const double2 t1 = zmul(ka0, g01) + zmul(ka1, g11);
        acc += zmulc(t0, kb0) + zmulc(t1, kb1);
    }
    rho_out[(size_t)r * dim + c] = acc;
}
