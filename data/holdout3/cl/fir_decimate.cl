/* FIR filter followed by decimation by `factor`: only every factor-th output sample is computed.
 * x holds ntaps-1 samples of history before the block, so output i is the convolution of the
 * taps with the window ending at x[i * factor + ntaps - 1]. The taps sit in constant memory. */
__kernel void fir_decimate(const int nout, const int ntaps, const int factor,
                           __global const float *x,
                           __constant float *taps,
                           __global float *y)
{
    const int i = get_global_id(0);
    if (i >= nout)
        return;

    const int newest = i * factor + ntaps - 1;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; k++)
        acc = mad(taps[k], x[newest - k], acc);
    y[i] = acc;
}
