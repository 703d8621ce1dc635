#define KERNEL_LOOP(i, n) for (int i = get_global_id(0); i < (n); i += get_global_size(0))
#define CLAMP01(x) fmin(fmax((x), 0.0f), 1.0f)
__kernel void grid_stride_macro(__global const float *a, __global float *b, int c)
{
    KERNEL_LOOP(d, c) {
        b[d] = CLAMP01(a[d] * 0.5f + 0.5f);
    }
}
