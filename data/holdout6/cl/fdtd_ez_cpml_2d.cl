/* 2-D FDTD (TMz), the E half-step: Ez on the integer nodes of a Yee grid is advanced from the curl of
 * Hx (staggered half a cell in y) and Hy (half a cell in x). Materials are indexed per cell, their
 * update coefficients ca/cb come from small tables. The outer npml cells on every side are a
 * convolutional PML: kappa stretches the derivatives there and the auxiliary psi fields (stored only
 * for the two x slabs and the two y slabs) carry the recursive convolution with coefficients b, c.
 * The outermost ring of nodes is a PEC wall and is never written. Normalised units: dx = dy = 1. */
__kernel void fdtd_ez_cpml_2d(const int nx, const int ny, const int npml,
                              __global float *ez,
                              __global const float *hx,
                              __global const float *hy,
                              __global const uchar *material,
                              __global const float *ca,
                              __global const float *cb,
                              __global const float *kappa_x, __global const float *b_x, __global const float *c_x,
                              __global const float *kappa_y, __global const float *b_y, __global const float *c_y,
                              __global float *psi_ezx,
                              __global float *psi_ezy)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1)
        return;

    const int c = j * nx + i;
    const float dhy_dx = hy[c] - hy[c - 1];
    const float dhx_dy = hx[c] - hx[c - nx];
    float curl = dhy_dx / kappa_x[i] - dhx_dy / kappa_y[j];

    if (i < npml || i >= nx - npml) {
        const int col = (i < npml) ? i : i - (nx - 2 * npml);
        const int p = j * (2 * npml) + col;
        const float psi = b_x[i] * psi_ezx[p] + c_x[i] * dhy_dx;
        psi_ezx[p] = psi;
        curl += psi;
    }
    if (j < npml || j >= ny - npml) {
        const int row = (j < npml) ? j : j - (ny - 2 * npml);
        const int p = row * nx + i;
        const float psi = b_y[j] * psi_ezy[p] + c_y[j] * dhx_dy;
        psi_ezy[p] = psi;
        curl -= psi;
    }

    const int m = material[c];
    ez[c] = ca[m] * ez[c] + cb[m] * curl;
}
