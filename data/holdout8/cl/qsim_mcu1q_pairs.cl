/* Multi-controlled single-qubit gate on a state vector of nq qubits: 2^nq complex amplitudes as float2
 * (re, im), bit q of an amplitude's index is qubit q. Each work-item owns one pair of amplitudes that
 * differ only in the target qubit: pair p gets a zero bit inserted at position `target` (i0), and
 * i1 = i0 | (1 << target). The 2x2 unitary u = [u00 u01; u10 u11] (row-major) is applied in place, but
 * only to pairs whose control qubits (ctrl_mask, never containing the target) are all 1; the other
 * pairs are left alone. ctrl_mask = 0 is a plain single-qubit gate. */
float2 cmul(const float2 a, const float2 b)
{
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__kernel void qsim_mcu1q_pairs(const int nq, const int target, const uint ctrl_mask,
                               __constant float2 *u,
                               __global float2 *psi)
{
    const uint p = get_global_id(0);
    const uint npairs = 1u << (nq - 1);
    if (p >= npairs)
        return;

    const uint tbit = 1u << target;
    const uint i0 = ((p >> target) << (target + 1)) | (p & (tbit - 1u));
    if ((i0 & ctrl_mask) != ctrl_mask)
        return;
    const uint i1 = i0 | tbit;

    const float2 a = psi[i0];
    const float2 b = psi[i1];
    psi[i0] = cmul(u[0], a) + cmul(u[1], b);
    psi[i1] = cmul(u[2], a) + cmul(u[3], b);
}
