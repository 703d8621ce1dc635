// 5-point weighted stencil with weights in __constant__ memory and a __device__ helper (2D grid).
__constant__ float weights[5];

__device__ __forceinline__ float load_clamped(const float *in, int x, int y, int w, int h)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return in[y * w + x];
}

__global__ void stencil2d(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        out[y * w + x] = weights[0] * load_clamped(in, x, y, w, h)
                       + weights[1] * load_clamped(in, x - 1, y, w, h)
                       + weights[2] * load_clamped(in, x + 1, y, w, h)
                       + weights[3] * load_clamped(in, x, y - 1, w, h)
                       + weights[4] * load_clamped(in, x, y + 1, w, h);
    }
}
