/* Depthwise 3x3 convolution (stride 1, zero padding) on an NHWC tensor, then bias and ReLU6, as in
 * a MobileNet block. NDRange dimension 0 runs over the channels (contiguous in NHWC), dimension 1
 * over the pixels of all images. Weights are stored [ky][kx][channel]. */
__kernel void depthwise3x3_nhwc(const int images, const int height, const int width, const int channels,
                                __global const float *x, __global const float *w,
                                __global const float *bias, __global float *y)
{
    const int c = get_global_id(0);
    const int p = get_global_id(1);
    const int npix = height * width;
    if (c >= channels || p >= images * npix)
        return;

    const int n = p / npix;
    const int rem = p - n * npix;
    const int oy = rem / width;
    const int ox = rem - oy * width;

    float acc = bias[c];
    for (int ky = 0; ky < 3; ky++) {
        const int iy = oy + ky - 1;
        if (iy < 0 || iy >= height)
            continue;
        for (int kx = 0; kx < 3; kx++) {
            const int ix = ox + kx - 1;
            if (ix < 0 || ix >= width)
                continue;
            const size_t src = ((size_t)(n * height + iy) * width + ix) * channels + c;
            acc += x[src] * w[(ky * 3 + kx) * channels + c];
        }
    }
    y[(size_t)p * channels + c] = fmin(fmax(acc, 0.0f), 6.0f);
}
