#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Spherical-harmonic synthesis of an Earth gravity field model at scattered points, one point per work-item,
 * in fp64 (spherical approximation, the points on the sphere of radius `radius`). Fully normalised associated
 * Legendre functions of t = sin(lat) by the standard forward column recursion: the sectoral P(m,m) from
 * P(m-1,m-1) times sqrt((2m+1)/(2m)) cos(lat) (sqrt(3) cos(lat) for m = 1), then up the column
 * P(n,m) = a(n,m) t P(n-1,m) - b(n,m) P(n-2,m). The recursion factors a, b and the model's coefficients C, S
 * are stored lower-triangular, index n (n + 1) / 2 + m; cos(m lon), sin(m lon) come from the angle-addition
 * recurrence. Degrees 2 .. nmax (the normal field's degree 0 and 1 left out). Outputs: the geoid undulation
 * R sum_nm P (C cos + S sin), in metres, and the gravity anomaly GM / R^2 sum_nm (n - 1) P (C cos + S sin),
 * in mGal. */
__kernel void geoid_sh_synth_fp64(const int npts, const int nmax, const double radius, const double gm,
                                  __global const double *lat,
                                  __global const double *lon,
                                  __global const double *cnm,
                                  __global const double *snm,
                                  __global const double *anm,
                                  __global const double *bnm,
                                  __global double *undulation,
                                  __global double *grav_anom)
{
    const int i = get_global_id(0);
    if (i >= npts)
        return;

    const double t = sin(lat[i]);
    const double u = cos(lat[i]);
    const double cl = cos(lon[i]);
    const double sl = sin(lon[i]);

    double pmm = 1.0;           /* P(m,m) */
    double cm = 1.0, sm = 0.0;  /* cos(m lon), sin(m lon) */
    double sum_n = 0.0, sum_g = 0.0;
    for (int m = 0; m <= nmax; m++) {
        if (m > 0) {
            pmm *= (m == 1 ? sqrt(3.0) : sqrt((2.0 * m + 1.0) / (2.0 * m))) * u;
            const double c_next = cm * cl - sm * sl;
            sm = sm * cl + cm * sl;
            cm = c_next;
        }
        int k = m * (m + 1) / 2 + m;
        if (m >= 2) {
            const double term = pmm * (cnm[k] * cm + snm[k] * sm);
            sum_n += term;
            sum_g += (m - 1) * term;
        }
        double p2 = 0.0, p1 = pmm;  /* P(n-2,m), P(n-1,m) */
        for (int n = m + 1; n <= nmax; n++) {
            k += n;                 /* n (n + 1) / 2 + m */
            const double p = anm[k] * t * p1 - bnm[k] * p2;
            p2 = p1;
            p1 = p;
            if (n >= 2) {
                const double term = p * (cnm[k] * cm + snm[k] * sm);
                sum_n += term;
                sum_g += (n - 1) * term;
            }
        }
    }
    undulation[i] = radius * sum_n;
    grav_anom[i] = gm / (radius * radius) * sum_g * 1.0e5;
}
