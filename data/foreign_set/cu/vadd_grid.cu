__global__ void vadd_grid(const float *__restrict__ a, const float *__restrict__ b, float *c, int d)
{
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < d; e += blockDim.x * gridDim.x)
        c[e] = a[e] + b[e];
}
