/* CIC decimator for a bank of software-radio channels. Each work-item filters one channel's burst of
 * complex baseband samples, nin of them stored contiguously, each packed in a uint as two signed 16-bit
 * halves (I low, Q high) as the ADC's DMA delivers them. nstages integrators run at the input rate,
 * decimation keeps every rate-th sample, and nstages combs (differential delay 1) run at the output
 * rate. All filter state is uint, so the integrators wrap modulo 2^32 like a hardware CIC's registers
 * and the combs undo the wrap; the output (gain rate^nstages, at most 2^16 here) is brought back to the
 * input scale by an arithmetic shift of shift bits. */
#define MAX_STAGES 8

__kernel void cic_decim_iq_u32(const int nchan, const int nin, const int rate, const int nstages,
                               const int shift,
                               __global const uint *iq,
                               __global int *out_i,
                               __global int *out_q)
{
    const int c = get_global_id(0);
    if (c >= nchan)
        return;

    uint integ_i[MAX_STAGES], integ_q[MAX_STAGES];
    uint comb_i[MAX_STAGES], comb_q[MAX_STAGES];
    for (int s = 0; s < nstages; s++) {
        integ_i[s] = 0u;
        integ_q[s] = 0u;
        comb_i[s] = 0u;
        comb_q[s] = 0u;
    }

    const int nout = nin / rate;
    __global const uint *src = iq + (size_t)c * nin;
    __global int *dst_i = out_i + (size_t)c * nout;
    __global int *dst_q = out_q + (size_t)c * nout;

    int phase = 0;
    int m = 0;
    for (int t = 0; t < nout * rate; t++) {
        const uint w = src[t];
        uint vi = (uint)(int)(short)(w & 0xffffu);
        uint vq = (uint)(int)(short)(w >> 16);
        for (int s = 0; s < nstages; s++) {
            integ_i[s] += vi;
            vi = integ_i[s];
            integ_q[s] += vq;
            vq = integ_q[s];
        }
        if (++phase == rate) {
            phase = 0;
            for (int s = 0; s < nstages; s++) {
                const uint di = vi - comb_i[s];
                const uint dq = vq - comb_q[s];
                comb_i[s] = vi;
                comb_q[s] = vq;
                vi = di;
                vq = dq;
            }
            dst_i[m] = ((int)vi) >> shift;
            dst_q[m] = ((int)vq) >> shift;
            m++;
        }
    }
}
