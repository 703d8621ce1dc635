#define WARP 32
__global__ void spmv_csr_warp(const int *a, const int *b, const float *c, const float *d, float *e, int f)
{
    __shared__ float g[256];
    int h = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int q = threadIdx.x % WARP;
    float s = 0.0f;
    if (h < f)
        for (int j = a[h] + q; j < a[h + 1]; j += WARP)
            s += c[j] * __ldg(&d[b[j]]);
    g[threadIdx.x] = s;
    __syncthreads();
    for (int w = WARP / 2; w > 0; w >>= 1) {
        if (q < w) g[threadIdx.x] += g[threadIdx.x + w];
        __syncthreads();
    }
    if (q == 0 && h < f) e[h] = g[threadIdx.x];
}
