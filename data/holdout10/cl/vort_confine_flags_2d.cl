/* Vorticity confinement of a 2-D smoke / incompressible-flow solver on a collocated nx x ny grid of cells (spacing
 * h), with a uint32 flag per cell (SOLID obstacle cells, INFLOW cells whose velocity is imposed). A work-item per
 * cell: the vorticity w = dv/dx - du/dy at the cell and at its four neighbours by central differences (one-sided
 * at the domain edge, solid cells seen with zero velocity), the gradient of |w| (a solid or outside neighbour
 * taking the cell's own |w|), N = grad|w| / (|grad|w|| + nrm_eps), and the force conf * h * (N x w) added to the
 * velocity over dt. Solid and inflow cells are copied. */
#define FLAG_SOLID 1u
#define FLAG_INFLOW 2u

inline float vel_at(__global const float *a, __global const uint *flags, int idx)
{
    return (flags[idx] & FLAG_SOLID) ? 0.0f : a[idx];
}

inline float curl_at(int i, int j, int nx, int ny, float inv_h,
                     __global const float *u, __global const float *v, __global const uint *flags)
{
    const int il = max(i - 1, 0);
    const int ir = min(i + 1, nx - 1);
    const int jd = max(j - 1, 0);
    const int ju = min(j + 1, ny - 1);
    const float dvdx = (vel_at(v, flags, j * nx + ir) - vel_at(v, flags, j * nx + il)) / (float)(ir - il);
    const float dudy = (vel_at(u, flags, ju * nx + i) - vel_at(u, flags, jd * nx + i)) / (float)(ju - jd);
    return (dvdx - dudy) * inv_h;
}

__kernel void vort_confine_flags_2d(const int nx, const int ny, const float h, const float conf,
                                    const float dt, const float nrm_eps,
                                    __global const float *u,
                                    __global const float *v,
                                    __global const uint *flags,
                                    __global float *u_out,
                                    __global float *v_out)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i >= nx || j >= ny)
        return;
    const int idx = j * nx + i;
    const uint fl = flags[idx];
    if (fl & (FLAG_SOLID | FLAG_INFLOW)) {
        u_out[idx] = u[idx];
        v_out[idx] = v[idx];
        return;
    }

    const float inv_h = 1.0f / h;
    const float w = curl_at(i, j, nx, ny, inv_h, u, v, flags);
    const float aw = fabs(w);

    /* |w| of the four neighbours; a solid neighbour or the domain edge takes the cell's own */
    float wl = aw, wr = aw, wd = aw, wu = aw;
    if (i > 0 && !(flags[idx - 1] & FLAG_SOLID))
        wl = fabs(curl_at(i - 1, j, nx, ny, inv_h, u, v, flags));
    if (i < nx - 1 && !(flags[idx + 1] & FLAG_SOLID))
        wr = fabs(curl_at(i + 1, j, nx, ny, inv_h, u, v, flags));
    if (j > 0 && !(flags[idx - nx] & FLAG_SOLID))
        wd = fabs(curl_at(i, j - 1, nx, ny, inv_h, u, v, flags));
    if (j < ny - 1 && !(flags[idx + nx] & FLAG_SOLID))
        wu = fabs(curl_at(i, j + 1, nx, ny, inv_h, u, v, flags));

    const float ex = 0.5f * (wr - wl);
    const float ey = 0.5f * (wu - wd);
    const float len = sqrt(ex * ex + ey * ey) + nrm_eps;
    const float nrm_x = ex / len;
    const float nrm_y = ey / len;

    const float fx = conf * h * (nrm_y * w);
    const float fy = -conf * h * (nrm_x * w);
    u_out[idx] = u[idx] + dt * fx;
    v_out[idx] = v[idx] + dt * fy;
}
