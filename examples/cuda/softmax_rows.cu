// Row-wise softmax, one block per row: max and sum reductions through shared memory, expf and __fdividef.
#define THREADS 128

__global__ void softmax_rows(const float *in, float *out, int cols)
{
    __shared__ float red[THREADS];
    const float *row_in = in + blockIdx.x * cols;
    float *row_out = out + blockIdx.x * cols;
    float m = -3.402823466e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        m = fmaxf(m, row_in[c]);
    }
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        }
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        sum += expf(row_in[c] - m);
    }
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            red[threadIdx.x] += red[threadIdx.x + s];
        }
        __syncthreads();
    }
    sum = red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        row_out[c] = __fdividef(expf(row_in[c] - m), sum);
    }
}
