/* One lattice-Boltzmann step on a periodic D2Q9 lattice: pull the nine populations from the
 * upstream neighbours (structure of arrays, one plane per direction), take density and velocity,
 * and relax towards the local equilibrium (BGK, rate omega). */
__constant int CX[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant int CY[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant float WQ[9] = {4.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f,
                          1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};

__kernel void lbm_d2q9(const int nx, const int ny, const float omega,
                       __global const float *f_in,
                       __global float *f_out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int cells = nx * ny;

    float f[9];
    float rho = 0.0f, ux = 0.0f, uy = 0.0f;
    for (int q = 0; q < 9; q++) {
        const int sx = (x - CX[q] + nx) % nx;
        const int sy = (y - CY[q] + ny) % ny;
        f[q] = f_in[q * cells + sy * nx + sx];
        rho += f[q];
        ux += CX[q] * f[q];
        uy += CY[q] * f[q];
    }
    ux /= rho;
    uy /= rho;
    const float usq = 1.5f * (ux * ux + uy * uy);
    for (int q = 0; q < 9; q++) {
        const float cu = 3.0f * (CX[q] * ux + CY[q] * uy);
        const float feq = WQ[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
        f_out[q * cells + y * nx + x] = f[q] + omega * (feq - f[q]);
    }
}
