// Unclosed brace: the kernel body never ends.
__global__ void bad_brace(float *a)
{
    if (threadIdx.x == 0) {
        a[0] = 1.0f;
}
