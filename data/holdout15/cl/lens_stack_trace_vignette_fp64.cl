#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Real (exact) ray trace through a lens of nsurf coaxial spherical surfaces in double precision, as a lens-design
 * program's spot-diagram or vignetting analysis does. Ray i starts on the entrance plane at (x, y) with direction
 * cosines (L, M) (rays[4 i ..]); surface s lies gap[s] mm after the previous vertex (the entrance plane for s = 0),
 * has curvature curv[s] (1 / mm, 0 for a plane), a clear semi-aperture semi_ap[s] and glass of index n_after[s]
 * behind it (n_inc in front of the first). One work-item per ray transfers it to each vertex plane, intersects the
 * sphere (Spencer and Murty's form, stable for curv -> 0), stops it when it misses the sphere, falls outside the
 * clear aperture or is totally internally reflected (lost[i] = s, the surface's uint32 counter incremented
 * atomically), otherwise refracts it by the vector Snell law and accumulates its optical path. Surviving rays go
 * on to the image plane img_gap after the last vertex: their image point and optical path length are written,
 * lost[i] = -1. */

__kernel void lens_stack_trace_vignette_fp64(const int nray, const int nsurf, const double n_inc,
                                             const double img_gap,
                                             __global const double *rays,
                                             __global const double *curv,
                                             __global const double *gap,
                                             __global const double *semi_ap,
                                             __global const double *n_after,
                                             __global double *img_xy,
                                             __global double *opl,
                                             __global int *lost,
                                             __global uint *vignetted)
{
    const int i = get_global_id(0);
    if (i >= nray)
        return;

    double x = rays[4 * i], y = rays[4 * i + 1], z = 0.0;
    double L = rays[4 * i + 2], M = rays[4 * i + 3];
    double N = sqrt(1.0 - L * L - M * M);
    double n1 = n_inc, path = 0.0;

    for (int s = 0; s < nsurf; s++) {
        const double c = curv[s];
        z -= gap[s]; /* position relative to this surface's vertex */
        /* distance along the ray to the sphere c (x^2 + y^2 + z^2) - 2 z = 0 */
        const double F = c * (x * x + y * y + z * z) - 2.0 * z;
        const double G = N - c * (x * L + y * M + z * N);
        const double disc = G * G - c * F;
        bool bad = disc < 0.0;
        double t = 0.0;
        if (!bad) {
            t = F / (G + sqrt(disc));
            x += t * L;
            y += t * M;
            z += t * N;
            bad = x * x + y * y > semi_ap[s] * semi_ap[s];
        }
        double n2 = n_after[s], cosr = 0.0, cosi = 0.0, mu = 0.0;
        if (!bad) {
            /* unit normal of the sphere at the hit, pointing along +z */
            const double ex = -c * x, ey = -c * y, ez = 1.0 - c * z;
            cosi = L * ex + M * ey + N * ez;
            mu = n1 / n2;
            const double k = 1.0 - mu * mu * (1.0 - cosi * cosi);
            bad = k < 0.0;
            if (!bad) {
                cosr = sqrt(k);
                const double g = cosr - mu * cosi;
                L = mu * L + g * ex;
                M = mu * M + g * ey;
                N = mu * N + g * ez;
            }
        }
        if (bad) {
            lost[i] = s;
            img_xy[2 * i] = 0.0;
            img_xy[2 * i + 1] = 0.0;
            opl[i] = 0.0;
            atomic_inc(&vignetted[s]);
            return;
        }
        path += n1 * t;
        n1 = n2;
    }

    /* last vertex to the image plane */
    const double t = (img_gap - z) / N;
    img_xy[2 * i] = x + t * L;
    img_xy[2 * i + 1] = y + t * M;
    opl[i] = path + n1 * t;
    lost[i] = -1;
}
