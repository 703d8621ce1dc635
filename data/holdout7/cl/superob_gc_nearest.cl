/* Super-observation binning for data assimilation: every observation (latitude, longitude in degrees,
 * value) is assigned to the nearest node of a model grid that is regular in longitude (node i at
 * i * 360 / nlon) and irregular in latitude (lat_grid, north to south). The latitude bracket is found by
 * bisection, and the nearest of the four surrounding nodes by great-circle (haversine) distance.
 * Observations that fail the gross-error check or lie farther than max_dist_km from every candidate are
 * dropped. Accepted values are added to the node in fixed point (1/1024 units) together with a count,
 * so that the host can average them; integer atomics make the sums independent of arrival order. */
#define EARTH_R 6371.0f
#define DEG2RAD 0.017453292519943295f
#define FIX_SCALE 1024.0f

__kernel void superob_gc_nearest(const int nobs, const int nlat, const int nlon,
                                 const float max_dist_km, const float qc_max,
                                 __global const float *obs_lat, __global const float *obs_lon,
                                 __global const float *obs_val, __global const float *lat_grid,
                                 __global int *sum_fx, __global uint *count)
{
    const int n = get_global_id(0);
    if (n >= nobs)
        return;

    const float val = obs_val[n];
    if (fabs(val) > qc_max)
        return;
    const float la = obs_lat[n];
    float lo = obs_lon[n];
    if (lo < 0.0f)
        lo += 360.0f;

    /* largest j with lat_grid[j] >= la, kept within 0 .. nlat - 2 */
    int jlo = 0, jhi = nlat - 1;
    while (jhi - jlo > 1) {
        const int mid = (jlo + jhi) >> 1;
        if (lat_grid[mid] >= la)
            jlo = mid;
        else
            jhi = mid;
    }

    const float dlon = 360.0f / (float)nlon;
    int i0 = (int)floor(lo / dlon);
    if (i0 >= nlon)
        i0 -= nlon;
    const float phi = la * DEG2RAD;
    const float cphi = cos(phi);

    float best = INFINITY;
    int best_node = -1;
    for (int dj = 0; dj < 2; dj++) {
        const int j = jlo + dj;
        const float phj = lat_grid[j] * DEG2RAD;
        const float sdp = sin(0.5f * (phj - phi));
        const float cc = cphi * cos(phj);
        for (int di = 0; di < 2; di++) {
            int i = i0 + di;
            if (i == nlon)
                i = 0;
            const float sdl = sin(0.5f * ((float)i * dlon - lo) * DEG2RAD);
            const float h = sdp * sdp + cc * sdl * sdl;
            const float d = 2.0f * EARTH_R * asin(sqrt(fmin(h, 1.0f)));
            if (d < best) {
                best = d;
                best_node = j * nlon + i;
            }
        }
    }
    if (best > max_dist_km)
        return;
    atomic_add(&sum_fx[best_node], (int)rint(val * FIX_SCALE));
    atomic_inc(&count[best_node]);
}
