/* C := alpha * A^T A + beta * C, lower triangle only, C stored packed by rows
 * (C(i,j), j <= i, at i*(i+1)/2 + j). A is K x N, row-major.
 * One work-item per packed element; (i, j) recovered from the packed index with a
 * floating-point square root and an integer fix-up. */
__kernel void syrk_packed_lower(int n, int k, float alpha, float beta,
                                __global const float *a, __global float *cp)
{
    int t = get_global_id(0);
    int total = n * (n + 1) / 2;
    if (t >= total)
        return;

    int i = (int)((sqrt(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
    while (i * (i + 1) / 2 > t)
        i--;
    while ((i + 1) * (i + 2) / 2 <= t)
        i++;
    int j = t - i * (i + 1) / 2;

    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += a[p * n + i] * a[p * n + j];
    cp[t] = alpha * sum + beta * cp[t];
}
