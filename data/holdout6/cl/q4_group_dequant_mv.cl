/* Weight-only 4-bit quantized linear layer of LLM decoding (GPTQ storage): out = x * W for a few
 * tokens. W (k_dim x n_dim) is packed eight 4-bit values to a uint along k: qweight[kw * n_dim + n]
 * holds rows 8kw .. 8kw+7 of column n, row 8kw+j in bits 4j .. 4j+3. Each group of group_size rows
 * has its own scale per column and a 4-bit zero point per column, packed eight columns to a uint
 * (qzeros[g * n_dim / 8 + n / 8], column n in bits 4 (n % 8)). Weight = scale * (q - zero).
 * Work-item n computes column n for every token, dequantizing as it goes. ntok is at most MAX_TOK. */
#define MAX_TOK 8

__kernel void q4_group_dequant_mv(const int ntok,
                                  const int k_dim,
                                  const int n_dim,
                                  const int group_size,
                                  __global const float *x,
                                  __global const uint *qweight,
                                  __global const float *scales,
                                  __global const uint *qzeros,
                                  __global const float *bias,
                                  __global float *out)
{
    const int n = get_global_id(0);
    if (n >= n_dim)
        return;

    float acc[MAX_TOK];
    for (int t = 0; t < ntok; t++)
        acc[t] = bias[n];

    const int ngroups = k_dim / group_size;
    for (int g = 0; g < ngroups; g++) {
        const float scale = scales[g * n_dim + n];
        const uint zword = qzeros[g * (n_dim / 8) + n / 8];
        const float zero = (float)((zword >> (4 * (n % 8))) & 0xFu);

        float part[MAX_TOK];
        for (int t = 0; t < ntok; t++)
            part[t] = 0.0f;

        const int kw0 = g * group_size / 8;
        const int kw1 = kw0 + group_size / 8;
        for (int kw = kw0; kw < kw1; kw++) {
            const uint word = qweight[kw * n_dim + n];
            for (int j = 0; j < 8; j++) {
                const float w = (float)((word >> (4 * j)) & 0xFu) - zero;
                const int k = kw * 8 + j;
                for (int t = 0; t < ntok; t++)
                    part[t] += w * x[t * k_dim + k];
            }
        }
        for (int t = 0; t < ntok; t++)
            acc[t] += scale * part[t];
    }

    for (int t = 0; t < ntok; t++)
        out[t * n_dim + n] = acc[t];
}
