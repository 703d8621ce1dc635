#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Diffuse shortwave two-stream radiative transfer in double precision, one column per work-item.
 * Layer optics (optical depth, single-scattering albedo, asymmetry factor) are stored column by column
 * (tau[col * nlay + k], layer 0 at the top). Each layer's diffuse reflectance and transmittance come
 * from the hemispheric-mean two-stream solution; optically thin layers are treated as transparent.
 * An upward sweep from the surface builds the albedo of everything below each interface (adding
 * method), a downward sweep then carries the incident flux through the layers with the multiple
 * reflections between each layer and what lies below it. */
#define MAXLAY 96

__kernel void two_stream_adding_fp64(const int ncol, const int nlay, const double flux_top,
                                     __global const double *tau, __global const double *ssa,
                                     __global const double *asym, __global const double *sfc_albedo,
                                     __global double *flux_up, __global double *flux_dn)
{
    const int col = get_global_id(0);
    if (col >= ncol)
        return;

    double r[MAXLAY], tr[MAXLAY], rbelow[MAXLAY + 1];
    const int base = col * nlay;

    for (int k = 0; k < nlay; k++) {
        const double t = tau[base + k];
        if (t < 1e-6) {
            r[k] = 0.0;
            tr[k] = 1.0;
            continue;
        }
        const double w = ssa[base + k], g = asym[base + k];
        const double g1 = 2.0 - w * (1.0 + g);
        const double g2 = w * (1.0 - g);
        const double lam = sqrt((g1 - g2) * (g1 + g2));
        const double e1 = exp(-lam * t);
        const double e2 = e1 * e1;
        const double denom = (lam + g1) + (lam - g1) * e2;
        r[k] = g2 * (1.0 - e2) / denom;
        tr[k] = 2.0 * lam * e1 / denom;
    }

    rbelow[nlay] = sfc_albedo[col];
    for (int k = nlay - 1; k >= 0; k--) {
        const double rb = rbelow[k + 1];
        rbelow[k] = r[k] + tr[k] * tr[k] * rb / (1.0 - r[k] * rb);
    }

    const int out = col * (nlay + 1);
    double dn = flux_top;
    for (int k = 0; k < nlay; k++) {
        flux_dn[out + k] = dn;
        flux_up[out + k] = rbelow[k] * dn;
        dn = tr[k] * dn / (1.0 - r[k] * rbelow[k + 1]);
    }
    flux_dn[out + nlay] = dn;
    flux_up[out + nlay] = rbelow[nlay] * dn;
}
