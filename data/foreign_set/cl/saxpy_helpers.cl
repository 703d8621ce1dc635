inline float f_scale(float a, float b) { return a * b; }
inline float f_acc(float a, float b) { return a + b; }
inline int f_idx(int a, int b) { return a * b + get_global_id(0) % b; }
float f_axpy(float a, __global const float *b, __global const float *c, int d)
{
    return f_acc(f_scale(a, b[d]), c[d]);
}
__kernel void saxpy_helpers(__global const float *a, __global const float *b, __global float *c, float d, int e)
{
    int f = get_global_id(0);
    if (f >= e) return;
    int g = f_idx(f / 4, 4);
    c[g] = f_axpy(d, a, b, g);
}
