#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Linear MMSE detection of four spatial layers per subcarrier in a link-level simulator, in double precision.
 * h holds each subcarrier's nrx x 4 channel matrix (complex, interleaved re/im, [subcarrier][rx][layer]), y the
 * received vectors of nsym OFDM symbols ([symbol][subcarrier][rx]). One work-item per subcarrier forms the
 * regularised Gram matrix G = H^H H + noise_var I, factors it by Cholesky (G = L L^H, L in private memory), then
 * for every symbol solves G x = H^H y by forward and back substitution and writes the layer estimates
 * ([symbol][subcarrier][layer]). The post-detection SINR of layer l, 1 / (noise_var [G^-1]_ll) - 1, comes from
 * the column norms of L^-1. */

#define NL 4

typedef double2 cdouble;

inline cdouble cmul(cdouble a, cdouble b)
{
    return (cdouble)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline cdouble cmulc(cdouble a, cdouble b)   /* conj(a) * b */
{
    return (cdouble)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}

__kernel void mimo4_mmse_chol_sinr_fp64(const int nsc, const int nsym, const int nrx, const double noise_var,
                                        __global const double *h,
                                        __global const double *y,
                                        __global double *x,
                                        __global double *sinr)
{
    const int k = get_global_id(0);
    if (k >= nsc)
        return;

    __global const double *hk = h + (size_t)k * nrx * NL * 2;

    /* lower triangle of G */
    cdouble L[NL][NL];
    for (int i = 0; i < NL; i++) {
        for (int j = 0; j <= i; j++) {
            cdouble acc = (cdouble)(0.0, 0.0);
            for (int r = 0; r < nrx; r++) {
                const cdouble hi = (cdouble)(hk[2 * (r * NL + i)], hk[2 * (r * NL + i) + 1]);
                const cdouble hj = (cdouble)(hk[2 * (r * NL + j)], hk[2 * (r * NL + j) + 1]);
                acc += cmulc(hi, hj);
            }
            L[i][j] = acc;
        }
        L[i][i].x += noise_var;
    }

    /* Cholesky in place: G = L L^H, real positive diagonal */
    double dinv[NL];
    for (int j = 0; j < NL; j++) {
        double d = L[j][j].x;
        for (int p = 0; p < j; p++)
            d -= L[j][p].x * L[j][p].x + L[j][p].y * L[j][p].y;
        d = sqrt(d);
        L[j][j] = (cdouble)(d, 0.0);
        dinv[j] = 1.0 / d;
        for (int i = j + 1; i < NL; i++) {
            cdouble s = L[i][j];
            for (int p = 0; p < j; p++)
                s -= cmulc(L[j][p], L[i][p]);
            L[i][j] = s * dinv[j];
        }
    }

    /* diag of G^-1 = squared column norms of L^-1 */
    for (int c = 0; c < NL; c++) {
        cdouble w[NL];
        double ss = 0.0;
        for (int i = 0; i < NL; i++) {
            cdouble s = (cdouble)(i == c ? 1.0 : 0.0, 0.0);
            for (int p = c; p < i; p++)
                s -= cmul(L[i][p], w[p]);
            w[i] = (i < c) ? (cdouble)(0.0, 0.0) : s * dinv[i];
            ss += w[i].x * w[i].x + w[i].y * w[i].y;
        }
        sinr[(size_t)k * NL + c] = 1.0 / (noise_var * ss) - 1.0;
    }

    for (int s = 0; s < nsym; s++) {
        __global const double *ys = y + ((size_t)s * nsc + k) * nrx * 2;
        cdouble v[NL];
        for (int i = 0; i < NL; i++) {
            cdouble z = (cdouble)(0.0, 0.0);
            for (int r = 0; r < nrx; r++) {
                const cdouble hr = (cdouble)(hk[2 * (r * NL + i)], hk[2 * (r * NL + i) + 1]);
                z += cmulc(hr, (cdouble)(ys[2 * r], ys[2 * r + 1]));
            }
            for (int p = 0; p < i; p++)
                z -= cmul(L[i][p], v[p]);
            v[i] = z * dinv[i];
        }
        for (int i = NL - 1; i >= 0; i--) {
            cdouble t = v[i];
            for (int p = i + 1; p < NL; p++)
                t -= cmulc(L[p][i], v[p]);
            v[i] = t * dinv[i];
        }
        __global double *xs = x + ((size_t)s * nsc + k) * NL * 2;
        for (int i = 0; i < NL; i++) {
            xs[2 * i] = v[i].x;
            xs[2 * i + 1] = v[i].y;
        }
    }
}
