/* Channel estimation and one-tap equalisation of an OFDM slot grid (nsym symbols x nsc subcarriers, complex
 * samples as interleaved float pairs, symbol-major). Reference symbols sit on every pstep-th OFDM symbol (pilot
 * symbol m is symbol m * pstep) and, inside one, on every pcomb-th subcarrier, shifted by pcomb / 2 on odd pilot
 * symbols (a staggered comb, as LTE's cell reference signals). pilot[] holds the known transmitted values, npil =
 * nsc / pcomb of them per pilot symbol. Each work-item of the 2-D NDRange (x: subcarrier, y: symbol) forms the
 * least-squares estimates y * conj(x) / |x|^2 at the pilots around it, interpolates them linearly in frequency
 * (holding the end pilots past the comb's edges) in the two pilot symbols that bracket its symbol, then linearly
 * in time (holding the last pilot symbol after it), and equalises its sample by the MMSE one-tap
 * conj(H) y / (|H|^2 + noise_var). */

typedef float2 cfloat;

inline cfloat cmul_conj(cfloat a, cfloat b)   /* a * conj(b) */
{
    return (cfloat)(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

/* LS channel estimate at pilot p of pilot symbol m */
inline cfloat ls_at(__global const float *rx, __global const float *pilot, int nsc, int pstep, int pcomb,
                    int npil, int m, int p)
{
    const int off = (m & 1) * (pcomb / 2);
    const size_t re = (size_t)(m * pstep) * nsc + off + p * pcomb;
    const cfloat y = (cfloat)(rx[2 * re], rx[2 * re + 1]);
    const int q = m * npil + p;
    const cfloat x = (cfloat)(pilot[2 * q], pilot[2 * q + 1]);
    return cmul_conj(y, x) / (x.x * x.x + x.y * x.y);
}

/* frequency interpolation of pilot symbol m's estimates at subcarrier k */
inline cfloat freq_interp(__global const float *rx, __global const float *pilot, int nsc, int pstep, int pcomb,
                          int npil, int m, int k)
{
    const int off = (m & 1) * (pcomb / 2);
    if (k <= off)
        return ls_at(rx, pilot, nsc, pstep, pcomb, npil, m, 0);
    const int p = (k - off) / pcomb;
    if (p >= npil - 1)
        return ls_at(rx, pilot, nsc, pstep, pcomb, npil, m, npil - 1);
    const float w = (float)(k - off - p * pcomb) / (float)pcomb;
    const cfloat h0 = ls_at(rx, pilot, nsc, pstep, pcomb, npil, m, p);
    const cfloat h1 = ls_at(rx, pilot, nsc, pstep, pcomb, npil, m, p + 1);
    return h0 + w * (h1 - h0);
}

__kernel void dmrs_ls_interp_mmse_eq_2d(const int nsc, const int nsym, const int pstep, const int pcomb,
                                        const float noise_var,
                                        __global const float *rx,
                                        __global const float *pilot,
                                        __global float *hest,
                                        __global float *xeq)
{
    const int k = get_global_id(0);
    const int l = get_global_id(1);
    if (k >= nsc || l >= nsym)
        return;

    const int npil = nsc / pcomb;
    const int npsym = (nsym - 1) / pstep + 1;
    const int m0 = l / pstep;

    cfloat h = freq_interp(rx, pilot, nsc, pstep, pcomb, npil, m0, k);
    const int dl = l - m0 * pstep;
    if (dl > 0 && m0 + 1 < npsym) {
        const cfloat h1 = freq_interp(rx, pilot, nsc, pstep, pcomb, npil, m0 + 1, k);
        h = h + ((float)dl / (float)pstep) * (h1 - h);
    }

    const size_t re = (size_t)l * nsc + k;
    const cfloat y = (cfloat)(rx[2 * re], rx[2 * re + 1]);
    const float g = h.x * h.x + h.y * h.y;
    const cfloat x = cmul_conj(y, h) / (g + noise_var);
    hest[2 * re] = h.x;
    hest[2 * re + 1] = h.y;
    xeq[2 * re] = x.x;
    xeq[2 * re + 1] = x.y;
}
