#define TID threadIdx.x
#define GID (blockIdx.x * blockDim.x + threadIdx.x)
#define HALVE(s) if (TID < (s)) b[TID] += b[TID + (s)]; __syncthreads()
__global__ void reduce_macros(const double *a, double *c, int d)
{
    __shared__ double b[128];
    b[TID] = GID < d ? a[GID] : 0.0;
    __syncthreads();
    HALVE(64); HALVE(32); HALVE(16); HALVE(8); HALVE(4); HALVE(2); HALVE(1);
    if (TID == 0) c[blockIdx.x] = b[0];
}
