// Tiled SGEMM with local memory: each work-group computes a TILE x TILE block of C.
// Requires M, N, K to be multiples of TILE and a TILE x TILE work-group.
#define TILE 16

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void sgemm_tiled(const int M, const int N, const int K,
                 __global const float *A,
                 __global const float *B,
                 __global float *C)
{
    __local float Asub[TILE][TILE];
    __local float Bsub[TILE][TILE];

    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int col = get_group_id(0) * TILE + lx;
    const int row = get_group_id(1) * TILE + ly;

    float acc = 0.0f;
    const int num_tiles = K / TILE;
    for (int t = 0; t < num_tiles; t++) {
        Asub[ly][lx] = A[row * K + t * TILE + lx];
        Bsub[ly][lx] = B[(t * TILE + ly) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TILE; k++) {
            acc += Asub[ly][k] * Bsub[k][lx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
