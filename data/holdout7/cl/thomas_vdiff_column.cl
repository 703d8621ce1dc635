/* Implicit (backward Euler) vertical diffusion of temperature, one atmospheric column per work-item.
 * Fields are stored level-major (t[k * ncol + col]) as in most GCM physics layers, so neighbouring
 * columns are neighbouring in memory. kdiff holds the eddy diffusivity on the interfaces (interface k
 * sits between level k-1 and level k; interfaces 0 and nlev are the model top and the ground and carry
 * no diffusive flux). The surface sensible heat flux enters the lowest level as a source term.
 * The tridiagonal system is solved with the Thomas algorithm: the forward sweep keeps the modified
 * upper coefficients in cprime and the modified right-hand side in t_new, the back substitution then
 * overwrites t_new with the solution. */
__kernel void thomas_vdiff_column(const int ncol, const int nlev, const float dt,
                                  __global const float *t, __global const float *kdiff,
                                  __global const float *dz, __global const float *sfc_flux,
                                  __global float *t_new, __global float *cprime)
{
    const int col = get_global_id(0);
    if (col >= ncol)
        return;

    float cp_prev = 0.0f, dp_prev = 0.0f;
    float dz_prev = dz[0];
    for (int k = 0; k < nlev; k++) {
        const float dzk = dz[k];
        float a = 0.0f, c = 0.0f;
        if (k > 0)
            a = dt * kdiff[k * ncol + col] / (dzk * 0.5f * (dz_prev + dzk));
        if (k < nlev - 1)
            c = dt * kdiff[(k + 1) * ncol + col] / (dzk * 0.5f * (dzk + dz[k + 1]));
        float rhs = t[k * ncol + col];
        if (k == nlev - 1)
            rhs += dt * sfc_flux[col] / dzk;
        /* lower diagonal -a, diagonal 1 + a + c, upper diagonal -c */
        const float m = 1.0f + a + c - (-a) * cp_prev;
        const float cpk = -c / m;
        const float dpk = (rhs + a * dp_prev) / m;
        cprime[k * ncol + col] = cpk;
        t_new[k * ncol + col] = dpk;
        cp_prev = cpk;
        dp_prev = dpk;
        dz_prev = dzk;
    }

    float x = dp_prev;
    for (int k = nlev - 2; k >= 0; k--) {
        x = t_new[k * ncol + col] - cprime[k * ncol + col] * x;
        t_new[k * ncol + col] = x;
    }
}
