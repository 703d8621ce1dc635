__kernel void float4_coeffs(__global const float *a, __global float *b, float4 c, int d)
{
    int i = get_global_id(0);
    if (i >= d) return;
    float x = a[i];
    b[i] = c.x + x * (c.y + x * (c.z + x * c.w));
}
