/* The x-advection half step of a split semi-Lagrangian Vlasov solver on a 1D1V phase-space grid: every velocity
 * row f[j][0 .. nx) moves by the constant shift v_j dt / dx (v_j = vmin + (j + 1/2) dv), periodic in x, and the
 * new values come from 4-point (cubic) Lagrange interpolation at the feet of the characteristics. One work-group
 * takes a row at a time (rows strided by the number of groups), copies it into __local memory, waits at a barrier,
 * interpolates every point of the row from the staged copy and writes fout; a second barrier protects the copy
 * before the next row is staged. */

__kernel void vlasov_xshift_rows_local(const int nx, const int nv, const float vmin, const float dv,
                                       const float dt_dx,
                                       __global const float *f,
                                       __global float *fout,
                                       __local float *row)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);

    for (int j = get_group_id(0); j < nv; j += get_num_groups(0)) {
        __global const float *src = f + (size_t)j * nx;
        for (int i = lid; i < nx; i += lsz)
            row[i] = src[i];
        barrier(CLK_LOCAL_MEM_FENCE);

        const float shift = (vmin + (j + 0.5f) * dv) * dt_dx;
        const float fs = floor(shift);
        const float a = 1.0f - (shift - fs); /* foot = i - shift = (i - fs - 1) + a */
        const int k = (int)fs + 1;
        /* Lagrange weights at offsets -1, 0, 1, 2 around the foot's cell */
        const float wm = -a * (a - 1.0f) * (a - 2.0f) * (1.0f / 6.0f);
        const float w0 = (a + 1.0f) * (a - 1.0f) * (a - 2.0f) * 0.5f;
        const float w1 = -(a + 1.0f) * a * (a - 2.0f) * 0.5f;
        const float w2 = (a + 1.0f) * a * (a - 1.0f) * (1.0f / 6.0f);
        int base = (-k - 1) % nx;
        if (base < 0)
            base += nx;

        __global float *dst = fout + (size_t)j * nx;
        for (int i = lid; i < nx; i += lsz) {
            int c = i + base; /* cell of offset -1 */
            if (c >= nx) c -= nx;
            const int c0 = (c + 1 == nx) ? 0 : c + 1;
            const int c1 = (c0 + 1 == nx) ? 0 : c0 + 1;
            const int c2 = (c1 + 1 == nx) ? 0 : c1 + 1;
            dst[i] = wm * row[c] + w0 * row[c0] + w1 * row[c1] + w2 * row[c2];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
