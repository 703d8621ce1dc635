// 7-point Jacobi stencil on a 3D grid (3D NDRange); boundary cells are copied.
#define IDX(x, y, z) (((z) * ny + (y)) * nx + (x))

__kernel void stencil3d(__global const float *in, __global float *out,
                        const int nx, const int ny, const int nz,
                        const float c0, const float c1)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz) {
        return;
    }
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[IDX(x, y, z)] = in[IDX(x, y, z)];
        return;
    }
    out[IDX(x, y, z)] = c0 * in[IDX(x, y, z)]
        + c1 * (in[IDX(x - 1, y, z)] + in[IDX(x + 1, y, z)]
              + in[IDX(x, y - 1, z)] + in[IDX(x, y + 1, z)]
              + in[IDX(x, y, z - 1)] + in[IDX(x, y, z + 1)]);
}
