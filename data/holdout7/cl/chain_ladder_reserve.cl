/* Chain-ladder claims reserving, one cumulative loss triangle (a line of business of one company) per
 * work-item. Triangle m is an ndev x ndev row-major block: row i = origin year, column j = development year,
 * known where i + j < ndev. The volume-weighted development factor of column j is the sum of column j + 1
 * over the rows known there divided by the sum of column j over the same rows (1 where that sum is 0).
 * Each origin year's latest diagonal value is developed to ultimate with the remaining factors and a tail
 * factor; the reserve is ultimate minus latest. Writes the factors, the reserve per origin year and in total. */
#define MAX_DEV 32

__kernel void chain_ladder_reserve(const int ntri, const int ndev, const float tail,
                                   __global const float *tri,
                                   __global float *factors,
                                   __global float *reserve,
                                   __global float *total)
{
    const int m = get_global_id(0);
    if (m >= ntri)
        return;

    __global const float *c = tri + (size_t)m * ndev * ndev;
    float f[MAX_DEV];

    for (int j = 0; j < ndev - 1; j++) {
        float num = 0.0f, den = 0.0f;
        for (int i = 0; i < ndev - 1 - j; i++) {
            num += c[i * ndev + j + 1];
            den += c[i * ndev + j];
        }
        f[j] = den > 0.0f ? num / den : 1.0f;
        factors[(size_t)m * (ndev - 1) + j] = f[j];
    }

    float sum = 0.0f;
    for (int i = 0; i < ndev; i++) {
        const float latest = c[i * ndev + (ndev - 1 - i)];
        float ult = latest;
        for (int j = ndev - 1 - i; j < ndev - 1; j++)
            ult *= f[j];
        ult *= tail;
        const float r = ult - latest;
        reserve[(size_t)m * ndev + i] = r;
        sum += r;
    }
    total[m] = sum;
}
