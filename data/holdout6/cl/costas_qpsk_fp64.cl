#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Carrier recovery for QPSK bursts behind a channeliser: nburst bursts arrive interleaved sample by
 * sample (sample t of burst b at t * nburst + b, complex as re, im pairs). Each work-item runs a
 * second-order Costas loop over one burst in double precision: the NCO phase derotates the sample, the
 * decision-directed phase detector e = sign(I) Q - sign(Q) I feeds a proportional-integral loop filter
 * (gains alpha, beta) that updates the frequency and advances the phase, kept in (-pi, pi]. Outputs:
 * the derotated samples, each burst's final frequency (radians per sample) and phase, and how many
 * samples of the burst's second half had a phase error below lock_tol (a lock detector). */
__kernel void costas_qpsk_fp64(const int nburst, const int burst_len, const double alpha, const double beta,
                               const double lock_tol,
                               __global const double *rx,
                               __global double *sym,
                               __global double *freq_out,
                               __global double *phase_out,
                               __global int *locked)
{
    const int b = get_global_id(0);
    if (b >= nburst)
        return;

    double phase = 0.0;
    double freq = 0.0;
    int nlock = 0;
    for (int t = 0; t < burst_len; t++) {
        const size_t k = 2 * ((size_t)t * nburst + b);
        const double re = rx[k];
        const double im = rx[k + 1];
        double c;
        const double s = sincos(phase, &c);
        const double zi = re * c + im * s;   /* (re + j im) * exp(-j phase) */
        const double zq = im * c - re * s;
        sym[k] = zi;
        sym[k + 1] = zq;

        const double err = (zi >= 0.0 ? zq : -zq) - (zq >= 0.0 ? zi : -zi);
        if (2 * t >= burst_len && fabs(err) < lock_tol)
            nlock++;
        freq += beta * err;
        phase += freq + alpha * err;
        if (phase > M_PI)
            phase -= 2.0 * M_PI;
        else if (phase <= -M_PI)
            phase += 2.0 * M_PI;
    }
    freq_out[b] = freq;
    phase_out[b] = phase;
    locked[b] = nlock;
}
