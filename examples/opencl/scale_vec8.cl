// Scale and offset with float8 loads, unrolled inner loop over a fixed number of chunks.
#define CHUNKS 4

__kernel void scale_vec8(__global const float8 *in, __global float8 *out,
                         const float alpha, const float beta, const int n8)
{
    const int base = get_global_id(0) * CHUNKS;
#pragma unroll 4
    for (int c = 0; c < CHUNKS; c++) {
        const int i = base + c;
        if (i < n8) {
            out[i] = mad((float8)(alpha), in[i], (float8)(beta));
        }
    }
}
