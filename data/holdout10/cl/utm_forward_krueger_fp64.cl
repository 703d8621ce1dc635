#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Forward UTM projection of GPS fixes (WGS84 latitude and longitude in degrees) in double precision by
 * Krueger's series in the third flattening n (Karney 2011), to order norder (at most 6). The conformal
 * latitude comes from the eccentricity e, the Gauss-Schreiber coordinates xi', eta' from it and the
 * longitude from the zone's central meridian, then
 *     xi  = xi'  + sum_j alpha[j-1] sin(2j xi') cosh(2j eta'),
 *     eta = eta' + sum_j alpha[j-1] cos(2j xi') sinh(2j eta'),
 * scaled by k0a = k0 * A (A the rectifying radius). The zone follows the longitude, with Norway's 32V and
 * Svalbard's 31X, 33X, 35X and 37X exceptions; points south of the equator get the 10 000 km false northing
 * and their zone negated. Outside the UTM band (latitude below -80 or from 84 on) there is no UTM: zone 0,
 * easting and northing 0. */
__kernel void utm_forward_krueger_fp64(const int npts, const int norder, const double e, const double k0a,
                                       __global const double *lat,
                                       __global const double *lon,
                                       __global const double *alpha,
                                       __global double *easting,
                                       __global double *northing,
                                       __global int *zone)
{
    const int i = get_global_id(0);
    if (i >= npts)
        return;

    const double phi_deg = lat[i];
    double lam_deg = lon[i];
    if (phi_deg < -80.0 || phi_deg >= 84.0) {
        easting[i] = 0.0;
        northing[i] = 0.0;
        zone[i] = 0;
        return;
    }
    if (lam_deg >= 180.0)
        lam_deg -= 360.0;

    int z = (int)floor((lam_deg + 180.0) / 6.0) + 1;
    if (phi_deg >= 56.0 && phi_deg < 64.0 && lam_deg >= 3.0 && lam_deg < 12.0)
        z = 32;
    if (phi_deg >= 72.0 && lam_deg >= 0.0 && lam_deg < 42.0) {
        if (lam_deg < 9.0)
            z = 31;
        else if (lam_deg < 21.0)
            z = 33;
        else if (lam_deg < 33.0)
            z = 35;
        else
            z = 37;
    }

    const double deg = M_PI / 180.0;
    const double phi = phi_deg * deg;
    const double lam = (lam_deg - (6.0 * z - 183.0)) * deg;

    const double s = sin(phi);
    const double t = sinh(atanh(s) - e * atanh(e * s));
    const double cl = cos(lam);
    const double xi_p = atan2(t, cl);
    const double eta_p = asinh(sin(lam) / sqrt(t * t + cl * cl));

    double xi = xi_p;
    double eta = eta_p;
    for (int j = 1; j <= norder; j++) {
        const double m = 2.0 * j;
        xi += alpha[j - 1] * sin(m * xi_p) * cosh(m * eta_p);
        eta += alpha[j - 1] * cos(m * xi_p) * sinh(m * eta_p);
    }

    easting[i] = 500000.0 + k0a * eta;
    northing[i] = (phi_deg < 0.0 ? 10000000.0 : 0.0) + k0a * xi;
    zone[i] = phi_deg < 0.0 ? -z : z;
}
