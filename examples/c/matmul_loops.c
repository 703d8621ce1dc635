/* Plain C triple loop nest: C = A * B (row-major), i-k-j order for unit-stride inner loop. */
#include <stddef.h>

#define BLOCK 64

void matmul(size_t n, const float *restrict A, const float *restrict B, float *restrict C)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            C[i * n + j] = 0.0f;
        }
        for (size_t k = 0; k < n; k++) {
            const float a = A[i * n + k];
            for (size_t j = 0; j < n; j++) {
                C[i * n + j] += a * B[k * n + j];
            }
        }
    }
}
