#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Close approaches of asteroids to the Earth, one asteroid per work-item, in double precision.
 * Each asteroid has heliocentric Keplerian elements (a [au], e, inclination, longitude of the node,
 * argument of perihelion [rad], mean anomaly at t = 0) and is sampled at nsamples epochs
 * t0 + k dt [days]. At every epoch Kepler's equation M = E - e sin E is solved by Newton's method
 * (starting from M, or from pi for very eccentric orbits) until the step falls under tol or max_iter
 * steps are spent; the position in the orbital plane is then rotated into the ecliptic and compared
 * with the Earth's, taken on a circular orbit of 1 au. The smallest distance and its epoch are kept. */
#define GAUSS_K 0.01720209895
#define TWO_PI 6.283185307179586
#define EARTH_YEAR 365.256363

__kernel void kepler_close_approach_fp64(const int nbodies, const int nsamples, const double t0,
                                         const double dt, const double earth_lon0, const double tol,
                                         const int max_iter,
                                         __global const double *elements,
                                         __global double *min_dist,
                                         __global int *min_epoch)
{
    const int b = get_global_id(0);
    if (b >= nbodies)
        return;

    __global const double *el = elements + 6 * b;
    const double a = el[0], e = el[1], inc = el[2], node = el[3], peri = el[4], m0 = el[5];
    const double n = GAUSS_K / (a * sqrt(a));          /* mean motion, rad/day (mass of the body neglected) */
    const double semi_minor = a * sqrt(1.0 - e * e);

    /* perifocal -> ecliptic: columns P (towards perihelion) and Q */
    const double cw = cos(peri), sw = sin(peri), cn = cos(node), sn = sin(node), ci = cos(inc), si = sin(inc);
    const double px = cw * cn - sw * sn * ci, py = cw * sn + sw * cn * ci, pz = sw * si;
    const double qx = -sw * cn - cw * sn * ci, qy = -sw * sn + cw * cn * ci, qz = cw * si;

    double best = 1e300;
    int best_k = 0;
    for (int k = 0; k < nsamples; k++) {
        const double t = t0 + k * dt;
        double m = fmod(m0 + n * t, TWO_PI);
        if (m > M_PI)
            m -= TWO_PI;
        else if (m < -M_PI)
            m += TWO_PI;

        double ea = (e < 0.8) ? m : (m < 0.0 ? -M_PI : M_PI);
        for (int it = 0; it < max_iter; it++) {
            const double step = (ea - e * sin(ea) - m) / (1.0 - e * cos(ea));
            ea -= step;
            if (fabs(step) < tol)
                break;
        }

        const double xo = a * (cos(ea) - e), yo = semi_minor * sin(ea);
        const double lon = earth_lon0 + TWO_PI * t / EARTH_YEAR;
        const double dx = xo * px + yo * qx - cos(lon);
        const double dy = xo * py + yo * qy - sin(lon);
        const double dz = xo * pz + yo * qz;
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < best) {
            best = d2;
            best_k = k;
        }
    }
    min_dist[b] = sqrt(best);
    min_epoch[b] = best_k;
}
