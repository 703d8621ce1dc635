/* Descrambling and HARQ soft combining of received codewords (5G NR, TS 38.211 5.2.1). Codeword c has
 * cw_len[c] LLRs from llr[cw_start[c]], scrambled by the length-31 Gold sequence seeded with c_init[c]:
 * x1(n + 31) = x1(n + 3) + x1(n), x2(n + 31) = x2(n + 3) + x2(n + 2) + x2(n + 1) + x2(n) (mod 2), x1 started at
 * 1, x2 at c_init, and c(n) = x1(n + 1600) + x2(n + 1600). One work-item per codeword runs both shift registers
 * (31-bit states in a uint, bit 0 the oldest) through the 1600 warm-up steps and then along its codeword,
 * flipping the sign of LLR n where c(n) = 1. A codeword flagged as new data (ndi) overwrites its HARQ buffer;
 * a retransmission adds to it, saturating at +-llr_clip. */
__kernel void nr_gold_descramble_harq(const int ncw, const int nc, const float llr_clip,
                                      __global const uint *c_init,
                                      __global const int *cw_start,
                                      __global const int *cw_len,
                                      __global const int *ndi,
                                      __global const float *llr,
                                      __global float *harq)
{
    const int c = get_global_id(0);
    if (c >= ncw)
        return;

    uint x1 = 1u;
    uint x2 = c_init[c] & 0x7FFFFFFFu;
    for (int n = 0; n < nc; n++) {
        const uint b1 = (x1 ^ (x1 >> 3)) & 1u;
        const uint b2 = (x2 ^ (x2 >> 1) ^ (x2 >> 2) ^ (x2 >> 3)) & 1u;
        x1 = (x1 >> 1) | (b1 << 30);
        x2 = (x2 >> 1) | (b2 << 30);
    }

    const int start = cw_start[c];
    const int len = cw_len[c];
    const int fresh = ndi[c];
    for (int n = 0; n < len; n++) {
        const float v = ((x1 ^ x2) & 1u) ? -llr[start + n] : llr[start + n];
        float acc = fresh ? v : harq[start + n] + v;
        harq[start + n] = clamp(acc, -llr_clip, llr_clip);
        const uint b1 = (x1 ^ (x1 >> 3)) & 1u;
        const uint b2 = (x2 ^ (x2 >> 1) ^ (x2 >> 2) ^ (x2 >> 3)) & 1u;
        x1 = (x1 >> 1) | (b1 << 30);
        x2 = (x2 >> 1) | (b2 << 30);
    }
}
