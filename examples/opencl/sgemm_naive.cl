// Naive SGEMM: C = alpha * A * B + beta * C, row-major, one work-item per element of C (2D NDRange).
__kernel void sgemm_naive(const int M, const int N, const int K,
                          const float alpha, const float beta,
                          __global const float *A,
                          __global const float *B,
                          __global float *C)
{
    const int row = get_global_id(1);
    const int col = get_global_id(0);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}
