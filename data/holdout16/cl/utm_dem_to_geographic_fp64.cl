#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Reprojection of a UTM-gridded DEM onto a geographic (latitude, longitude) grid, as a GIS warp does it: for
 * each output pixel (column j of lon[], row i of lat[], degrees) the WGS84 point is projected forward with the
 * transverse Mercator series of Krueger (n-series to n^3, central meridian lon0, scale 0.9996, false easting
 * 500 km, northern hemisphere) in double precision, turned into a fractional source pixel of the sw x sh
 * north-up grid (pixel centre (0, 0) at easting e0, northing n0, square cells of res metres) and resampled
 * bilinearly. Corners that are nodata (-9999) drop out and the weights of the others are renormalised; pixels
 * outside the source grid, or with less than a quarter of the weight on valid corners, get nodata. */

#define NODATA (-9999.0f)
#define K0 0.9996
#define FALSE_E 500000.0
#define A_WGS 6378137.0
#define F_WGS (1.0 / 298.257223563)

__kernel void utm_dem_to_geographic_fp64(const int nlon, const int nlat, const int sw, const int sh,
                                         const double lon0, const double e0, const double n0, const double res,
                                         __global const double *lon,
                                         __global const double *lat,
                                         __global const float *src,
                                         __global float *dst)
{
    const int j = get_global_id(0), i = get_global_id(1);
    if (j >= nlon || i >= nlat)
        return;

    const double n = F_WGS / (2.0 - F_WGS);
    const double n2 = n * n, n3 = n2 * n;
    const double big_a = A_WGS / (1.0 + n) * (1.0 + n2 / 4.0 + n2 * n2 / 64.0);
    const double al1 = n / 2.0 - 2.0 * n2 / 3.0 + 5.0 * n3 / 16.0;
    const double al2 = 13.0 * n2 / 48.0 - 3.0 * n3 / 5.0;
    const double al3 = 61.0 * n3 / 240.0;
    const double c2 = 2.0 * sqrt(n) / (1.0 + n);

    const double phi = radians(lat[i]);
    const double dlam = radians(lon[j] - lon0);
    const double sphi = sin(phi);
    const double t = sinh(atanh(sphi) - c2 * atanh(c2 * sphi));
    const double xi_p = atan2(t, cos(dlam));
    const double eta_p = atanh(sin(dlam) / sqrt(1.0 + t * t));

    double xi = xi_p, eta = eta_p;
    const double al[3] = {al1, al2, al3};
    for (int k = 1; k <= 3; k++) {
        const double a2 = 2.0 * k;
        xi += al[k - 1] * sin(a2 * xi_p) * cosh(a2 * eta_p);
        eta += al[k - 1] * cos(a2 * xi_p) * sinh(a2 * eta_p);
    }
    const double east = FALSE_E + K0 * big_a * eta;
    const double north = K0 * big_a * xi;

    const double cx = (east - e0) / res;
    const double cy = (n0 - north) / res;
    float v = NODATA;
    if (cx >= 0.0 && cy >= 0.0 && cx <= sw - 1 && cy <= sh - 1) {
        const int x0 = min((int)cx, sw - 2), y0 = min((int)cy, sh - 2);
        const double fx = cx - x0, fy = cy - y0;
        const double w[4] = {(1.0 - fx) * (1.0 - fy), fx * (1.0 - fy), (1.0 - fx) * fy, fx * fy};
        const size_t p = (size_t)y0 * sw + x0;
        const float s[4] = {src[p], src[p + 1], src[p + sw], src[p + sw + 1]};
        double acc = 0.0, wsum = 0.0;
        for (int c = 0; c < 4; c++) {
            if (s[c] != NODATA) {
                acc += w[c] * s[c];
                wsum += w[c];
            }
        }
        if (wsum >= 0.25)
            v = (float)(acc / wsum);
    }
    dst[(size_t)i * nlon + j] = v;
}
