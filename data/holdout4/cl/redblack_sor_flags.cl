/* One colour of a red-black SOR sweep for the Poisson problem -lap(u) = f on a grid with obstacles.
 * Cells with flag == FLUID are relaxed; solid cells and the outer ring are left alone. A solid
 * neighbour acts as a zero-gradient (Neumann) wall, so it drops out of the 5-point sum and the
 * diagonal becomes the number of fluid neighbours. Launched twice per sweep, colour 0 then 1:
 * a cell of one colour only reads cells of the other. */
#define FLUID 0

__kernel void redblack_sor_flags(const int nx, const int ny, const int colour, const float omega,
                                 const float h2, __global const int *flag, __global const float *f,
                                 __global float *u)
{
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1)
        return;
    if (((i + j) & 1) != colour)
        return;

    const int c = j * nx + i;
    if (flag[c] != FLUID)
        return;

    const int nb[4] = {c - 1, c + 1, c - nx, c + nx};
    float sum = 0.0f;
    int cnt = 0;
    for (int k = 0; k < 4; k++) {
        if (flag[nb[k]] == FLUID) {
            sum += u[nb[k]];
            cnt++;
        }
    }
    if (cnt == 0)
        return;

    const float gs = (sum + h2 * f[c]) / (float)cnt;
    u[c] = u[c] + omega * (gs - u[c]);
}
