__kernel void float4_stream(__global const float4 *a, __global const float4 *b, __global float4 *c, float d, int e)
{
    int i = get_global_id(0);
    if (i < e / 4)
        c[i] = a[i] + d * b[i];
}
