__kernel void npb_cast_rhs(__global double *a, __global double *b, int c, int d)
{
    __global double (*e)[5] = (__global double (*)[5])a;
    __global double (*f)[5] = (__global double (*)[5])b;
    int g = get_global_id(0);
    if (g >= c * d) return;
    double h = 0.0;
    for (int m = 0; m < 5; m++) h += e[g][m] * e[g][m];
    for (int m = 0; m < 5; m++) f[g][m] = e[g][m] / (1.0 + h);
}
