/* The simplest launches there are, for benchmarks/simple_streams.py: one float (or uint) stored per work-item,
 * after none, one, seven or about thirty integer operations, or a copy, a scale and an integer copy. Written to
 * show how a model prices bytes and integer work when nothing else is going on. */
__kernel void fill1(const int n, __global float *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = 1.0f;
}

__kernel void fill_index(const int n, __global float *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = (float)i;
}

__kernel void fill_hash1(const int n, __global float *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = (float)((uint)i * 0x9E3779B9u);
}

__kernel void fill_hash7(const int n, __global float *out)
{
    const int i = get_global_id(0);
    uint x = (uint)i * 0x9E3779B9u;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    if (i < n) out[i] = (float)x;
}

__kernel void fill_hash31(const int n, __global float *out)
{
    const int i = get_global_id(0);
    uint x = (uint)i * 0x9E3779B9u;
    for (int r = 0; r < 4; r++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; x *= 0x85EBCA6Bu; }
    if (i < n) out[i] = (float)x;
}

__kernel void copy_f32(const int n, __global const float *a, __global float *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = a[i];
}

__kernel void scale_f32(const int n, __global const float *a, __global float *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = 2.0f * a[i] + 1.0f;
}

__kernel void hash_u32(const int n, __global const uint *a, __global uint *out)
{
    const int i = get_global_id(0);
    if (i < n) out[i] = a[i] * 0x9E3779B9u;
}
