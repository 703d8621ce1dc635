/* QAOA cost layer for weighted MaxCut on nq qubits: the diagonal operator exp(-i gamma C) applied in place to a
 * state vector of 2^nq complex amplitudes (float2: re, im; bit q of the index is qubit / vertex q). Each edge is
 * stored as a uint mask with its two vertex bits set and an integer weight; basis state z cuts the edge when
 * exactly one of the two bits is set in z, i.e. popcount(z & mask) == 1. A work-item per basis state adds the
 * weights of the cut edges, stores the cut value (for the energy estimate on the host) and rotates its amplitude
 * by the phase -gamma * C(z). */
__kernel void qaoa_maxcut_phase_masks_u32(const int nstate, const int nedge, const float gamma,
                                          __global const uint *edge_mask,
                                          __global const int *edge_w,
                                          __global int *cut_val,
                                          __global float2 *psi)
{
    const int i = get_global_id(0);
    if (i >= nstate)
        return;

    const uint z = (uint)i;
    int c = 0;
    for (int e = 0; e < nedge; ++e) {
        const uint m = edge_mask[e];
        if (popcount(z & m) == 1u)
            c += edge_w[e];
    }
    cut_val[i] = c;

    const float phi = -gamma * (float)c;
    float cs;
    const float sn = sincos(phi, &cs);
    const float2 a = psi[i];
    psi[i] = (float2)(a.x * cs - a.y * sn, a.x * sn + a.y * cs);
}
