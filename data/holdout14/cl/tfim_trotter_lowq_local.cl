/* One first-order Trotter step of the transverse-field Ising chain H = -sum_b J_b Z_b Z_{b+1} - sum_j h_j X_j on a
 * state vector of 2^nq amplitudes (float2), for the low nlow qubits of the mixer: the ZZ phase of every bond, then
 * exp(i dt h_j X_j) for j = 0 .. nlow-1. (The high qubits' mixer runs in a later launch after the simulator swaps
 * qubits, as blocked state-vector simulators do.) A work-group takes one block of 2^nlow consecutive amplitudes at
 * a time (looping by the number of groups): its work-items load the block into __local memory, each amplitude
 * multiplied by exp(i dt sum_b J_b s_b s_{b+1}) with s = +-1 from the index bits; then, qubit after qubit with a
 * barrier between, every work-item rotates amplitude pairs (c, i s; i s, c) in __local; the block is written
 * back in place. */
__kernel void tfim_trotter_lowq_local(const int nq, const int nlow, const float dt,
                                      __global const float *jbond,
                                      __global const float *hx,
                                      __global float2 *psi,
                                      __local float2 *blk)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const int bsize = 1 << nlow;
    const int nblock = 1 << (nq - nlow);

    for (int g = get_group_id(0); g < nblock; g += get_num_groups(0)) {
        const uint base = (uint)g << nlow;

        for (int j = lid; j < bsize; j += lsz) {
            const uint z = base + (uint)j;
            const uint d = z ^ (z >> 1);  /* bit b set: spins b and b+1 differ */
            float e = 0.0f;
            for (int b = 0; b < nq - 1; ++b)
                e += ((d >> b) & 1u) ? -jbond[b] : jbond[b];
            float cs;
            const float sn = sincos(dt * e, &cs);
            const float2 a = psi[z];
            blk[j] = (float2)(a.x * cs - a.y * sn, a.x * sn + a.y * cs);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int t = 0; t < nlow; ++t) {
            float c;
            const float s = sincos(dt * hx[t], &c);
            const int tbit = 1 << t;
            for (int p = lid; p < bsize / 2; p += lsz) {
                const int i0 = ((p >> t) << (t + 1)) | (p & (tbit - 1));
                const int i1 = i0 | tbit;
                const float2 a0 = blk[i0];
                const float2 a1 = blk[i1];
                /* (c, i s; i s, c): i s a = (-s a.y, s a.x) */
                blk[i0] = (float2)(c * a0.x - s * a1.y, c * a0.y + s * a1.x);
                blk[i1] = (float2)(c * a1.x - s * a0.y, c * a1.y + s * a0.x);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int j = lid; j < bsize; j += lsz)
            psi[base + (uint)j] = blk[j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
