/* Immersed-boundary force spreading: each Lagrangian marker of the immersed bodies (positions in grid units on a
 * periodic nx x ny Eulerian grid, nodes at integer coordinates) spreads its force density times its arc-length
 * weight over the 4 x 4 nodes around it with the cubic B-spline regularised delta function (IBAMR's BSPLINE_4).
 * The grid forces are summed as 16.16 fixed-point ints with atomic_add, so the spread field does not depend on
 * the order of the markers. Contraction is off and the weights use only + - *, so every marker's share is the
 * same on any device. Markers of bodies at rest carry no force and leave at once. */
#pragma OPENCL FP_CONTRACT OFF
#define FSCALE 65536.0f
#define ONE_SIXTH 0.16666667f

inline void bspline4_weights(const float t, float *w)
{
    const float s = 1.0f - t;
    const float t2 = t * t;
    const float t3 = t2 * t;
    w[0] = s * s * s * ONE_SIXTH;
    w[1] = (3.0f * t3 - 6.0f * t2 + 4.0f) * ONE_SIXTH;
    w[2] = (-3.0f * t3 + 3.0f * t2 + 3.0f * t + 1.0f) * ONE_SIXTH;
    w[3] = t3 * ONE_SIXTH;
}

__kernel void ib_spread_bspline4_fixed(const int nmark, const int nx, const int ny,
                                       __global const float *mx,
                                       __global const float *my,
                                       __global const float *fmx,
                                       __global const float *fmy,
                                       __global const float *ds,
                                       __global int *grid_fx,
                                       __global int *grid_fy)
{
    const int m = get_global_id(0);
    if (m >= nmark)
        return;

    const float sx = fmx[m] * ds[m] * FSCALE;
    const float sy = fmy[m] * ds[m] * FSCALE;
    if (sx == 0.0f && sy == 0.0f)
        return;

    const float x = mx[m];
    const float y = my[m];
    const float x0 = floor(x);
    const float y0 = floor(y);
    float wx[4], wy[4];
    bspline4_weights(x - x0, wx);
    bspline4_weights(y - y0, wy);
    const int ix = (int)x0 - 1;
    const int iy = (int)y0 - 1;

    for (int b = 0; b < 4; b++) {
        int gy = iy + b;
        if (gy < 0)
            gy += ny;
        else if (gy >= ny)
            gy -= ny;
        const float ay = sx * wy[b];
        const float by = sy * wy[b];
        for (int a = 0; a < 4; a++) {
            int gx = ix + a;
            if (gx < 0)
                gx += nx;
            else if (gx >= nx)
                gx -= nx;
            const int node = gy * nx + gx;
            atomic_add(&grid_fx[node], (int)(ay * wx[a]));
            atomic_add(&grid_fy[node], (int)(by * wx[a]));
        }
    }
}
