/* One generation of Conway's Game of Life on a torus (the edges wrap around with %); cells are
 * bytes holding 0 or 1. */
__kernel void life_torus_uchar(const int width, const int height,
                               __global const uchar *cells,
                               __global uchar *next)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int xl = (x + width - 1) % width;
    const int xr = (x + 1) % width;
    const int up = ((y + height - 1) % height) * width;
    const int mid = y * width;
    const int down = ((y + 1) % height) * width;

    const int neighbours = cells[up + xl] + cells[up + x] + cells[up + xr]
                         + cells[mid + xl] + cells[mid + xr]
                         + cells[down + xl] + cells[down + x] + cells[down + xr];
    const int alive = cells[mid + x];
    next[mid + x] = (neighbours == 3 || (alive && neighbours == 2)) ? 1 : 0;
}
