// Histogram with shared-memory privatisation and atomicAdd, grid-stride over the input.
#define BINS 64

__global__ void histogram_atomic(const unsigned char *data, int n, unsigned int *bins)
{
    __shared__ unsigned int local_bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        local_bins[b] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local_bins[data[i] % BINS], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        atomicAdd(&bins[b], local_bins[b]);
    }
}
