/* C = A * B (row-major, M x K times K x N). Each work-item computes a 4x4 block of C
 * in 16 registers: four scalars of A and one float4 row slice of B per k step,
 * straight from global memory (no local memory). */
__kernel void sgemm_reg4x4(int M, int N, int K,
                           __global const float *A,
                           __global const float4 *B,
                           __global float4 *C)
{
    int col4 = get_global_id(0);      /* which float4 column block */
    int row0 = get_global_id(1) * 4;  /* first of the four rows */
    int n4 = N / 4;

    float4 c0 = (float4)(0.0f);
    float4 c1 = (float4)(0.0f);
    float4 c2 = (float4)(0.0f);
    float4 c3 = (float4)(0.0f);

    for (int k = 0; k < K; ++k) {
        float4 b = B[k * n4 + col4];
        float a0 = A[(row0 + 0) * K + k];
        float a1 = A[(row0 + 1) * K + k];
        float a2 = A[(row0 + 2) * K + k];
        float a3 = A[(row0 + 3) * K + k];
        c0 += a0 * b;
        c1 += a1 * b;
        c2 += a2 * b;
        c3 += a3 * b;
    }
    C[(row0 + 0) * n4 + col4] = c0;
    C[(row0 + 1) * n4 + col4] = c1;
    C[(row0 + 2) * n4 + col4] = c2;
    C[(row0 + 3) * n4 + col4] = c3;
}
