/* Smooth particle-mesh Ewald, the force gather: after the reciprocal-space convolution and the inverse FFT the
 * real grid (kx * ky * kz, z fastest) holds the convolved potential; each atom interpolates it with order-4
 * cardinal B-splines over the 4 x 4 x 4 grid points below its fractional position (periodic wrap) and gets
 *     F = -q (kx / lx sum dMx My Mz g, ky / ly sum Mx dMy Mz g, kz / lz sum Mx My dMz g),  phi = sum Mx My Mz g
 * One work-item per atom, positions and charges as float4 (x, y, z, q) in a rectangular box, atoms in the
 * spatial order of the pair search. Uncharged atoms (united-atom groups, virtual sites) are skipped. */
__kernel void pme_gather_bspline4_forces(const int natom, const int kx, const int ky, const int kz,
                                         const float lx, const float ly, const float lz,
                                         __global const float4 *xq,
                                         __global const float *grid,
                                         __global float *force,
                                         __global float *phi)
{
    const int i = get_global_id(0);
    if (i >= natom)
        return;

    const float4 p = xq[i];
    if (p.w == 0.0f) {
        vstore3((float3)(0.0f), i, force);
        phi[i] = 0.0f;
        return;
    }

    float s[3] = {p.x / lx, p.y / ly, p.z / lz};
    const int kdim[3] = {kx, ky, kz};
    float th[3][4], dth[3][4];
    int idx[3][4];
    for (int d = 0; d < 3; d++) {
        s[d] -= floor(s[d]);
        const float u = s[d] * kdim[d];
        const int iu = (int)u;
        const float w = u - iu;
        const float w1 = 1.0f - w;
        th[d][0] = w1 * w1 * w1 * (1.0f / 6.0f);
        th[d][1] = (3.0f * w * w * w - 6.0f * w * w + 4.0f) * (1.0f / 6.0f);
        th[d][2] = (-3.0f * w * w * w + 3.0f * w * w + 3.0f * w + 1.0f) * (1.0f / 6.0f);
        th[d][3] = w * w * w * (1.0f / 6.0f);
        dth[d][0] = -0.5f * w1 * w1;
        dth[d][1] = 1.5f * w * w - 2.0f * w;
        dth[d][2] = -1.5f * w * w + w + 0.5f;
        dth[d][3] = 0.5f * w * w;
        for (int t = 0; t < 4; t++) {
            int g = iu - 3 + t;
            if (g < 0)
                g += kdim[d];
            else if (g >= kdim[d])
                g -= kdim[d];
            idx[d][t] = g;
        }
    }

    float fx = 0.0f, fy = 0.0f, fz = 0.0f, pot = 0.0f;
    for (int a = 0; a < 4; a++) {
        const float tx = th[0][a], dx = dth[0][a];
        for (int b = 0; b < 4; b++) {
            const float ty = th[1][b], dy = dth[1][b];
            __global const float *row = grid + ((size_t)idx[0][a] * ky + idx[1][b]) * kz;
            for (int c = 0; c < 4; c++) {
                const float g = row[idx[2][c]];
                const float tz = th[2][c];
                fx += dx * ty * tz * g;
                fy += tx * dy * tz * g;
                fz += tx * ty * dth[2][c] * g;
                pot += tx * ty * tz * g;
            }
        }
    }
    const float q = p.w;
    vstore3((float3)(-q * fx * kx / lx, -q * fy * ky / ly, -q * fz * kz / lz), i, force);
    phi[i] = pot;
}
