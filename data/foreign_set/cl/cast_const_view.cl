__kernel void cast_const_view(__global const float *a, __global float *b, int c)
{
    const __global float (*d)[4] = (const __global float (*)[4])a;
    int e = get_global_id(0);
    if (e >= c) return;
    b[e] = d[e][0] * d[e][3] - d[e][1] * d[e][2];
}
