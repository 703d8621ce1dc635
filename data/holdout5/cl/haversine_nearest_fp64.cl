#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Nearest facility on the sphere for every query point, in double precision. Points and centres are
 * (latitude, longitude) pairs in degrees. The haversine term a = sin^2(dlat/2) + cos(lat1) cos(lat2)
 * sin^2(dlon/2) grows with the great-circle distance, so the loop over the centres compares a alone
 * and counts the centres within a search radius against a threshold on a; the arc sine runs once,
 * for the winner. */
#define EARTH_RADIUS_KM 6371.0088
#define DEG2RAD (M_PI / 180.0)

__kernel void haversine_nearest_fp64(const int npoints, const int ncentres, const double radius_km,
                                     __global const double *points, __global const double *centres,
                                     __global int *nearest, __global double *dist_km,
                                     __global int *within)
{
    const int i = get_global_id(0);
    if (i >= npoints)
        return;

    const double lat1 = points[2 * i] * DEG2RAD;
    const double lon1 = points[2 * i + 1] * DEG2RAD;
    const double cos_lat1 = cos(lat1);
    const double h = sin(0.5 * radius_km / EARTH_RADIUS_KM);
    const double a_max = h * h;

    double best_a = 2.0;
    int best = -1;
    int count = 0;
    for (int c = 0; c < ncentres; c++) {
        const double lat2 = centres[2 * c] * DEG2RAD;
        const double lon2 = centres[2 * c + 1] * DEG2RAD;
        const double s_lat = sin(0.5 * (lat2 - lat1));
        const double s_lon = sin(0.5 * (lon2 - lon1));
        const double a = s_lat * s_lat + cos_lat1 * cos(lat2) * s_lon * s_lon;
        if (a <= a_max)
            count++;
        if (a < best_a) {
            best_a = a;
            best = c;
        }
    }
    nearest[i] = best;
    dist_km[i] = 2.0 * EARTH_RADIUS_KM * asin(sqrt(fmin(best_a, 1.0)));
    within[i] = count;
}
