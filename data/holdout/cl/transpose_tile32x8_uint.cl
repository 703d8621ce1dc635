/* out (cols x rows) = transpose of in (rows x cols), unsigned ints.
 * 32x33 local tile (one column of padding against bank conflicts); the 32x8
 * work-group moves the 32x32 tile in four passes of eight rows. */
#define TILE_DIM 32
#define BLOCK_ROWS 8

__kernel __attribute__((reqd_work_group_size(TILE_DIM, BLOCK_ROWS, 1)))
void transpose_tile32x8_uint(const int rows, const int cols,
                             __global const uint *in, __global uint *out)
{
    __local uint tile[TILE_DIM][TILE_DIM + 1];
    int tx = get_local_id(0);
    int ty = get_local_id(1);
    int x = get_group_id(0) * TILE_DIM + tx;
    int y = get_group_id(1) * TILE_DIM + ty;

    for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
        tile[ty + r][tx] = in[(y + r) * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    x = get_group_id(1) * TILE_DIM + tx;
    y = get_group_id(0) * TILE_DIM + ty;
    for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
        out[(y + r) * rows + x] = tile[tx][ty + r];
}
