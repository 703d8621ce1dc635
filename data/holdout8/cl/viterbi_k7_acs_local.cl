/* Soft-decision Viterbi decoder for the K = 7, rate 1/2 convolutional code (generators 171, 133 octal),
 * many terminated frames at once. A frame is 64 work-items, one per trellis state; a work-group holds
 * lsz / 64 frames. The encoder register is (input << 6) | state and the next state is register >> 1, so
 * state ns is reached from (ns << 1 | j) & 63, j = 0, 1, with input bit ns >> 5. Per step each item adds
 * the branch metrics of its two predecessors (3-bit soft symbols: 0 = sure 0 .. 7 = sure 1) to their
 * path metrics (uint, double-buffered in __local), keeps the smaller (ties: j = 0) and records j; two
 * items per frame pack the 64 decisions into two uint words of survivor memory. After the last step
 * item 0 of each frame traces back from state 0 (tail bits) and writes the decoded bits. */
#define G0 0x79u
#define G1 0x5bu
#define START_METRIC 0x00100000u

__kernel void viterbi_k7_acs_local(const int nframes, const int nsteps,
                                   __global const uchar *soft,
                                   __global uint *survivors,
                                   __global uchar *bits,
                                   __global uint *final_metric,
                                   __local uint *pm_a,
                                   __local uint *pm_b,
                                   __local uchar *dec)
{
    const int lid = get_local_id(0);
    const int s = lid & 63;
    const int slot = lid - s;
    const int f = get_global_id(0) >> 6;
    const int active = f < nframes;

    const uint reg0 = (uint)s << 1;
    const uint reg1 = reg0 | 1u;
    const int p0 = slot + (int)(reg0 & 63u);
    const int p1 = slot + (int)(reg1 & 63u);
    const uint e00 = popcount(reg0 & G0) & 1u, e01 = popcount(reg0 & G1) & 1u;
    const uint e10 = popcount(reg1 & G0) & 1u, e11 = popcount(reg1 & G1) & 1u;

    __local uint *cur = pm_a;
    __local uint *nxt = pm_b;
    cur[lid] = (s == 0) ? 0u : START_METRIC;
    barrier(CLK_LOCAL_MEM_FENCE);

    __global const uchar *rx = soft + (size_t)f * nsteps * 2;
    for (int t = 0; t < nsteps; t++) {
        uint r0 = 0u, r1 = 0u;
        if (active) {
            r0 = rx[2 * t];
            r1 = rx[2 * t + 1];
        }
        const uint bm0 = (e00 ? 7u - r0 : r0) + (e01 ? 7u - r1 : r1);
        const uint bm1 = (e10 ? 7u - r0 : r0) + (e11 ? 7u - r1 : r1);
        const uint m0 = cur[p0] + bm0;
        const uint m1 = cur[p1] + bm1;
        const int pick = m1 < m0;
        nxt[lid] = pick ? m1 : m0;
        dec[lid] = (uchar)pick;
        barrier(CLK_LOCAL_MEM_FENCE);

        if (active && (s & 31) == 0) {
            uint w = 0u;
            for (int k = 0; k < 32; k++)
                w |= (uint)dec[lid + k] << k;
            survivors[((size_t)f * nsteps + t) * 2 + (s >> 5)] = w;
        }
        __local uint *tmp = cur;
        cur = nxt;
        nxt = tmp;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);

    if (active && s == 0) {
        final_metric[f] = cur[slot];
        uint st = 0u;
        for (int t = nsteps - 1; t >= 0; t--) {
            bits[(size_t)f * nsteps + t] = (uchar)(st >> 5);
            const uint w = survivors[((size_t)f * nsteps + t) * 2 + (st >> 5)];
            st = ((st << 1) | ((w >> (st & 31u)) & 1u)) & 63u;
        }
    }
}
