/* Three-tap 1-D convolution with the taps in constant memory; zero outside the signal. */
__kernel void conv3_constant(const int n,
                             __constant float *w,
                             __global const float *x,
                             __global float *y)
{
    const int i = get_global_id(0);
    const float left = (i > 0) ? x[i - 1] : 0.0f;
    const float right = (i < n - 1) ? x[i + 1] : 0.0f;
    y[i] = w[0] * left + w[1] * x[i] + w[2] * right;
}
