/* Batch-norm inference followed by ReLU on an NCHW tensor. The NDRange is (pixel, channel, image):
 * every work-item folds its channel's running mean/variance and affine parameters into one
 * scale and shift, then normalises one element. */
__kernel void batchnorm_relu_nchw(const int hw, const int channels, const float eps,
                                  __global const float *x,
                                  __global const float *mean, __global const float *var,
                                  __global const float *gamma, __global const float *beta,
                                  __global float *y)
{
    const int p = get_global_id(0);
    const int c = get_global_id(1);
    const int b = get_global_id(2);
    if (p >= hw)
        return;

    const float scale = gamma[c] * rsqrt(var[c] + eps);
    const float shift = beta[c] - mean[c] * scale;
    const size_t idx = ((size_t)b * channels + c) * hw + p;
    y[idx] = fmax(x[idx] * scale + shift, 0.0f);
}
