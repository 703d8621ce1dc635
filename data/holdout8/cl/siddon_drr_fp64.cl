#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Digitally reconstructed radiograph by Siddon-Jacobs ray tracing in double precision, one detector pixel per
 * work-item on a 2-D (u, v) NDRange. mu[(k * ny + j) * nx + i] holds the attenuation (1/mm) of a voxel grid of
 * cubic voxels (edge vox mm) spanning [0, n * vox] on each axis. geom holds the source position, the centre of
 * detector pixel (0, 0) and the detector's u and v steps (mm, 3 doubles each). The ray from the source to the
 * pixel centre is clipped to the volume's box (a miss gives zero), then walked voxel by voxel: the parametric
 * distance to the next x, y or z plane decides which index steps, and each voxel adds mu times the length of
 * its segment. line_int is the radiological path, chord the geometric length inside the volume. */
__kernel void siddon_drr_fp64(const int nu, const int nv, const int nx, const int ny, const int nz,
                              const double vox,
                              __global const double *geom,
                              __global const float *mu,
                              __global double *line_int,
                              __global double *chord)
{
    const int iu = get_global_id(0);
    const int iv = get_global_id(1);
    if (iu >= nu || iv >= nv)
        return;

    const double sx = geom[0], sy = geom[1], sz = geom[2];
    const double dx = geom[3] + iu * geom[6] + iv * geom[9] - sx;
    const double dy = geom[4] + iu * geom[7] + iv * geom[10] - sy;
    const double dz = geom[5] + iu * geom[8] + iv * geom[11] - sz;
    const double len = sqrt(dx * dx + dy * dy + dz * dz);
    const double ext[3] = {nx * vox, ny * vox, nz * vox};
    const double s[3] = {sx, sy, sz};
    const double d[3] = {dx, dy, dz};
    const int pix = iv * nu + iu;

    /* clip the ray (alpha in [0, 1] from source to pixel) to the volume's box */
    double amin = 0.0, amax = 1.0;
    for (int ax = 0; ax < 3; ax++) {
        if (fabs(d[ax]) > 1e-12) {
            const double a0 = -s[ax] / d[ax];
            const double a1 = (ext[ax] - s[ax]) / d[ax];
            amin = fmax(amin, fmin(a0, a1));
            amax = fmin(amax, fmax(a0, a1));
        } else if (s[ax] < 0.0 || s[ax] > ext[ax]) {
            amax = -1.0;
        }
    }
    if (amin >= amax) {
        line_int[pix] = 0.0;
        chord[pix] = 0.0;
        return;
    }

    /* first voxel, and the alpha of the next plane crossing on each axis */
    int idx[3], step[3];
    double anext[3], adelta[3];
    const int n[3] = {nx, ny, nz};
    for (int ax = 0; ax < 3; ax++) {
        const double p = s[ax] + amin * d[ax];
        idx[ax] = clamp((int)floor(p / vox), 0, n[ax] - 1);
        if (fabs(d[ax]) > 1e-12) {
            step[ax] = d[ax] > 0.0 ? 1 : -1;
            const double plane = (d[ax] > 0.0 ? idx[ax] + 1 : idx[ax]) * vox;
            anext[ax] = (plane - s[ax]) / d[ax];
            adelta[ax] = vox / fabs(d[ax]);
        } else {
            step[ax] = 0;
            anext[ax] = INFINITY;
            adelta[ax] = INFINITY;
        }
    }

    double a = amin, acc = 0.0;
    int i = idx[0], j = idx[1], k = idx[2];
    double ax_ = anext[0], ay_ = anext[1], az_ = anext[2];
    while (a < amax) {
        const double an = fmin(fmin(ax_, ay_), fmin(az_, amax));
        acc += (an - a) * mu[((size_t)k * ny + j) * nx + i];
        a = an;
        if (ax_ <= ay_ && ax_ <= az_) {
            i += step[0];
            ax_ += adelta[0];
            if (i < 0 || i >= nx)
                break;
        } else if (ay_ <= az_) {
            j += step[1];
            ay_ += adelta[1];
            if (j < 0 || j >= ny)
                break;
        } else {
            k += step[2];
            az_ += adelta[2];
            if (k < 0 || k >= nz)
                break;
        }
    }
    line_int[pix] = acc * len;
    chord[pix] = (amax - amin) * len;
}
