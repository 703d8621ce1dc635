/* Key generation of ML-KEM (Kyber) in the NTT domain: t = A o s + e for a batch of keys, every polynomial 256
 * int16 coefficients in [0, q), q = 3329, A a k x k matrix of polynomials per key, s and e vectors of k. In the NTT
 * domain a product of polynomials is 128 products of degree-1 polynomials modulo X^2 - gamma_x (gamma_x =
 * 17^(2 brv7(x) + 1)): (a0 + a1 X)(b0 + b1 X) = (a0 b0 + a1 b1 gamma) + (a0 b1 + a1 b0) X. A 2-D NDRange, x: the
 * coefficient pair (0 .. 127), y: the key's row (key * k + i); each work-item accumulates the k base products of
 * row i of A with s, adds e and writes its pair of t. Reductions modulo q are Barrett's with mul_hi. */
#define KQ 3329u
#define BARRETT_M 1290167u /* floor(2^32 / q) */

inline uint barrett(uint x)
{
    uint r = x - mul_hi(x, BARRETT_M) * KQ;
    return r >= KQ ? r - KQ : r;
}

__kernel void mlkem_basemul_matvec_2d(const int nrows, const int k,
                                      __global const short *gamma,
                                      __global const short *a_hat,
                                      __global const short *s_hat,
                                      __global const short *e_hat,
                                      __global short *t_hat)
{
    const int x = get_global_id(0);
    const int row = get_global_id(1);
    if (x >= 128 || row >= nrows)
        return;

    const int key = row / k;
    const uint g = (uint)gamma[x];
    uint r0 = 0, r1 = 0;
    for (int j = 0; j < k; ++j) {
        const size_t ia = ((size_t)row * k + j) * 256 + 2 * x;
        const size_t is = ((size_t)key * k + j) * 256 + 2 * x;
        const uint a0 = (uint)a_hat[ia], a1 = (uint)a_hat[ia + 1];
        const uint b0 = (uint)s_hat[is], b1 = (uint)s_hat[is + 1];
        r0 = barrett(r0 + barrett(a0 * b0 + barrett(a1 * b1) * g));
        r1 = barrett(r1 + a0 * b1 + a1 * b0);
    }
    const size_t it = (size_t)row * 256 + 2 * x;
    r0 = barrett(r0 + (uint)e_hat[it]);
    r1 = barrett(r1 + (uint)e_hat[it + 1]);
    t_hat[it] = (short)r0;
    t_hat[it + 1] = (short)r1;
}
