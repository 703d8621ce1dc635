/* One step of 1-D linear advection u_t + c u_x = 0 for many independent periodic rows (a dimensionally
 * split sweep): a second-order upwind flux with a TVD slope limiter, 2-D NDRange (cell, row). Each row
 * has its own velocity, given as the Courant number nu = c dt / dx (|nu| <= 1). Cell i needs the fluxes
 * through its two faces, i.e. the cells i-2 .. i+2 with periodic wrap-around. */
#define LIM_MINMOD 0
#define LIM_SUPERBEE 1
#define LIM_VANLEER 2

static float limiter(float th, int kind)
{
    switch (kind) {
    case LIM_MINMOD:
        return fmax(0.0f, fmin(1.0f, th));
    case LIM_SUPERBEE:
        return fmax(0.0f, fmax(fmin(2.0f * th, 1.0f), fmin(th, 2.0f)));
    default:
        return (th + fabs(th)) / (1.0f + fabs(th));
    }
}

/* flux / c through the face between cells with values ul, ur; upw is the next cell upwind of the face's
 * upwind cell, and nu the Courant number */
static float face_flux(float upw, float ul, float ur, float nu, int kind)
{
    const float jump = ur - ul;
    float phi = 0.0f;
    if (nu >= 0.0f) {
        if (jump != 0.0f)
            phi = limiter((ul - upw) / jump, kind);
        return ul + 0.5f * (1.0f - nu) * phi * jump;
    }
    if (jump != 0.0f)
        phi = limiter((upw - ur) / jump, kind);
    return ur - 0.5f * (1.0f + nu) * phi * jump;
}

__kernel void advect_flux_limited_rows(const int ncell, const int nrow, const int kind,
                                       __global const float *courant,
                                       __global const float *u, __global float *u_next)
{
    const int i = get_global_id(0);
    const int row = get_global_id(1);
    if (i >= ncell || row >= nrow)
        return;

    __global const float *q = u + (size_t)row * ncell;
    const float nu = courant[row];
    const int im2 = (i >= 2) ? i - 2 : i - 2 + ncell;
    const int im1 = (i >= 1) ? i - 1 : ncell - 1;
    const int ip1 = (i + 1 < ncell) ? i + 1 : 0;
    const int ip2 = (i + 2 < ncell) ? i + 2 : i + 2 - ncell;

    float f_left, f_right;
    if (nu >= 0.0f) {
        f_left = face_flux(q[im2], q[im1], q[i], nu, kind);
        f_right = face_flux(q[im1], q[i], q[ip1], nu, kind);
    } else {
        f_left = face_flux(q[ip1], q[im1], q[i], nu, kind);
        f_right = face_flux(q[ip2], q[i], q[ip1], nu, kind);
    }
    u_next[(size_t)row * ncell + i] = q[i] - nu * (f_right - f_left);
}
