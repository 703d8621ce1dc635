__kernel void adi_row_sweep(__global double *a, __global const double *b, __global double *c, int d, int e)
{
    int i = get_global_id(0);
    if (i >= d) return;
    for (int j = 1; j < e; j++) {
        double m = b[i * e + j] / b[i * e + j - 1];
        c[i * e + j] = c[i * e + j] - m * c[i * e + j - 1];
        a[i * e + j] = a[i * e + j] - m * a[i * e + j - 1];
    }
    a[i * e + e - 1] = a[i * e + e - 1] / c[i * e + e - 1];
    for (int j = e - 2; j >= 0; j--)
        a[i * e + j] = (a[i * e + j] - b[i * e + j] * a[i * e + j + 1]) / c[i * e + j];
}
