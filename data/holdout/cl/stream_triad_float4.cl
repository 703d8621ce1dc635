/* STREAM triad a = b + q * c on float4 vectors. */
__kernel void stream_triad_float4(__global float4 *a,
                                  __global const float4 *b,
                                  __global const float4 *c,
                                  const float q)
{
    const size_t i = get_global_id(0);
    a[i] = b[i] + q * c[i];
}
