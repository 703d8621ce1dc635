// SAXPY with a grid-stride loop: any grid size covers any n. Host launch shown for completeness.
__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

void launch_saxpy(int n, float a, const float *x, float *y)
{
    saxpy_grid_stride<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
