/* Radial viewshed from one observer over a DEM (nx x ny float32 elevations in metres, row-major, cell size `cell`
 * metres, nodata = -9999). Ray r leaves the observer at (ox, oy) (cell units, pixel centres at integers) at the
 * angle 2 pi r / nray and is marched nstep unit steps, the DEM sampled bilinearly at every step. The sight-line
 * test is the usual maximum-slope one: a target tgt_h metres above the ground at step k is visible when the slope
 * from the observer's eye to it is at least the steepest slope to the bare ground at any earlier step, both after
 * the earth-curvature and refraction drop d^2 (1 - k_refr) / (2 R). Each step writes that margin (target slope
 * minus the running maximum; >= 0 means visible), or NO_SAMPLE where the ray has left the DEM or touches a
 * nodata cell (which does not update the maximum). The ray's final horizon elevation angle (degrees) is kept. */

#define NODATA (-9999.0f)
#define NO_SAMPLE (-1.0e4f)
#define EARTH_R 6371000.0f
#define K_REFR 0.13f

float dem_at(__global const float *dem, int nx, int ny, float x, float y, int *ok)
{
    int x0 = min((int)x, nx - 2);
    int y0 = min((int)y, ny - 2);
    const float fx = x - x0, fy = y - y0;
    const size_t p = (size_t)y0 * nx + x0;
    const float a = dem[p], b = dem[p + 1], c = dem[p + nx], d = dem[p + nx + 1];
    if (a == NODATA || b == NODATA || c == NODATA || d == NODATA) {
        *ok = 0;
        return 0.0f;
    }
    *ok = 1;
    return (a * (1.0f - fx) + b * fx) * (1.0f - fy) + (c * (1.0f - fx) + d * fx) * fy;
}

__kernel void viewshed_ray_march_horizon(const int nx, const int ny, const int nray, const int nstep,
                                         const float ox, const float oy, const float obs_h, const float tgt_h,
                                         const float cell,
                                         __global const float *dem,
                                         __global float *margin,
                                         __global float *horizon)
{
    const int r = get_global_id(0);
    if (r >= nray)
        return;

    const float ang = 6.2831853f * r / nray;
    const float dx = cos(ang), dy = sin(ang);
    __global float *out = margin + (size_t)r * nstep;

    int ok;
    const float z0 = dem_at(dem, nx, ny, ox, oy, &ok) + obs_h;
    float smax = -1000.0f; /* a vertical wall below the eye */
    int k = 1;
    for (; k <= nstep; k++) {
        const float x = ox + k * dx, y = oy + k * dy;
        if (x < 0.0f || y < 0.0f || x > nx - 1 || y > ny - 1)
            break;
        const float z = dem_at(dem, nx, ny, x, y, &ok);
        if (!ok) {
            out[k - 1] = NO_SAMPLE;
            continue;
        }
        const float d = k * cell;
        const float drop = d * d * (1.0f - K_REFR) / (2.0f * EARTH_R);
        const float ground = (z - drop - z0) / d;
        const float target = (z + tgt_h - drop - z0) / d;
        out[k - 1] = target - smax;
        smax = fmax(smax, ground);
    }
    for (; k <= nstep; k++)
        out[k - 1] = NO_SAMPLE;
    horizon[r] = degrees(atan(smax));
}
