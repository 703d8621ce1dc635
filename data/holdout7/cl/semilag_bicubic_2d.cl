/* One step of semi-Lagrangian advection of a tracer on a latitude-longitude style grid: periodic in x
 * (longitude), closed at the southern and northern rows (indices clamped). Winds u, v are given in grid
 * cells per time step at the cell centres. The displacement to the departure point is found by two
 * midpoint iterations on the bilinearly interpolated wind; the tracer is then interpolated there with a
 * 4 x 4 cubic Lagrange stencil and clipped to the range of the four surrounding values (quasi-monotone
 * semi-Lagrangian). */
inline int wrap_x(int i, int nx)
{
    i %= nx;
    return i < 0 ? i + nx : i;
}

inline int clamp_y(int j, int ny)
{
    return j < 0 ? 0 : (j >= ny ? ny - 1 : j);
}

inline float bilinear(__global const float *f, float x, float y, int nx, int ny)
{
    const float fx = floor(x), fy = floor(y);
    const float ax = x - fx, ay = y - fy;
    const int i0 = wrap_x((int)fx, nx), i1 = wrap_x((int)fx + 1, nx);
    const int j0 = clamp_y((int)fy, ny), j1 = clamp_y((int)fy + 1, ny);
    const float lo = f[j0 * nx + i0] + ax * (f[j0 * nx + i1] - f[j0 * nx + i0]);
    const float hi = f[j1 * nx + i0] + ax * (f[j1 * nx + i1] - f[j1 * nx + i0]);
    return lo + ay * (hi - lo);
}

inline void lagrange4(float s, float *w)
{
    /* weights of the nodes at -1, 0, 1, 2 for 0 <= s < 1 */
    w[0] = -s * (s - 1.0f) * (s - 2.0f) / 6.0f;
    w[1] = (s + 1.0f) * (s - 1.0f) * (s - 2.0f) / 2.0f;
    w[2] = -(s + 1.0f) * s * (s - 2.0f) / 2.0f;
    w[3] = (s + 1.0f) * s * (s - 1.0f) / 6.0f;
}

__kernel void semilag_bicubic_2d(const int nx, const int ny,
                                 __global const float *u, __global const float *v,
                                 __global const float *q, __global float *q_new)
{
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= nx || j >= ny)
        return;

    const float x = (float)i, y = (float)j;
    float dx = u[j * nx + i], dy = v[j * nx + i];
    for (int it = 0; it < 2; it++) {
        const float xm = x - 0.5f * dx, ym = y - 0.5f * dy;
        dx = bilinear(u, xm, ym, nx, ny);
        dy = bilinear(v, xm, ym, nx, ny);
    }
    const float xd = x - dx, yd = y - dy;
    const float fx = floor(xd), fy = floor(yd);
    const int ib = (int)fx, jb = (int)fy;
    float wx[4], wy[4];
    lagrange4(xd - fx, wx);
    lagrange4(yd - fy, wy);

    int cols[4];
    for (int a = 0; a < 4; a++)
        cols[a] = wrap_x(ib - 1 + a, nx);

    float sum = 0.0f;
    float qmin = INFINITY, qmax = -INFINITY;
    for (int b = 0; b < 4; b++) {
        const int row = clamp_y(jb - 1 + b, ny) * nx;
        float rs = 0.0f;
        for (int a = 0; a < 4; a++) {
            const float val = q[row + cols[a]];
            rs += wx[a] * val;
            if ((a == 1 || a == 2) && (b == 1 || b == 2)) {
                qmin = fmin(qmin, val);
                qmax = fmax(qmax, val);
            }
        }
        sum += wy[b] * rs;
    }
    q_new[j * nx + i] = clamp(sum, qmin, qmax);
}
