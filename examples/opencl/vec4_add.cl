// Element-wise addition of float4 vectors: each work-item handles four floats.
__kernel void vec4_add(__global const float4 *a,
                       __global const float4 *b,
                       __global float4 *c,
                       const uint n4)
{
    size_t i = get_global_id(0);
    if (i < n4) {
        c[i] = a[i] + b[i];
    }
}
