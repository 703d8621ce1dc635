#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Expectation values <psi|P_t|psi> of the Pauli strings of a qubit Hamiltonian, in double precision.
 * String t is given by two bit masks over the nq qubits: xmask (qubits with X or Y) and zmask (qubits
 * with Z or Y), so P = i^ny X^x Z^z with ny = popcount(x & z) Y factors, and
 *     <P> = Re( i^ny * sum_i (-1)^popcount(i & z) conj(psi[i ^ x]) psi[i] ).
 * Work-groups take terms in turn (a group moves on by the number of groups); the items stride over the
 * amplitudes and the partial sums meet in a __local tree. Diagonal strings (x == 0) only need the
 * probabilities; otherwise only the real or the imaginary part of the sum is needed, by ny's parity.
 * expval[t] = coeff[t] * <P_t>. */
__kernel void pauli_expval_local_fp64(const int nq, const int nterm,
                                      __global const double2 *psi,
                                      __global const uint *xmask,
                                      __global const uint *zmask,
                                      __global const double *coeff,
                                      __global double *expval,
                                      __local double *red)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const uint dim = 1u << nq;

    for (int t = get_group_id(0); t < nterm; t += get_num_groups(0)) {
        const uint x = xmask[t];
        const uint z = zmask[t];
        const int ny = popcount(x & z) & 3;

        double acc = 0.0;
        if (x == 0u) {
            for (uint i = lid; i < dim; i += lsz) {
                const double2 a = psi[i];
                const double p = a.x * a.x + a.y * a.y;
                acc += (popcount(i & z) & 1) ? -p : p;
            }
        } else if (ny & 1) {
            for (uint i = lid; i < dim; i += lsz) {
                const double2 a = psi[i];
                const double2 b = psi[i ^ x];
                const double v = b.x * a.y - b.y * a.x;
                acc += (popcount(i & z) & 1) ? -v : v;
            }
        } else {
            for (uint i = lid; i < dim; i += lsz) {
                const double2 a = psi[i];
                const double2 b = psi[i ^ x];
                const double v = b.x * a.x + b.y * a.y;
                acc += (popcount(i & z) & 1) ? -v : v;
            }
        }

        red[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = lsz >> 1; s > 0; s >>= 1) {
            if (lid < s)
                red[lid] += red[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            /* i^ny: 0 -> Re S, 1 -> -Im S, 2 -> -Re S, 3 -> Im S */
            const double sum = (ny == 1 || ny == 2) ? -red[0] : red[0];
            expval[t] = coeff[t] * sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
