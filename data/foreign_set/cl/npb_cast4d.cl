#define KMAX 64
#define JMAX 128
#define IMAX 128
__kernel void npb_cast4d(__global double *a, __global double *b, double c)
{
    __global double (*d)[JMAX][IMAX][2] = (__global double (*)[JMAX][IMAX][2])a;
    __global double (*e)[JMAX][IMAX][2] = (__global double (*)[JMAX][IMAX][2])b;
    int f = get_global_id(0);
    int g = get_global_id(1);
    int h = get_global_id(2);
    if (f >= IMAX || g >= JMAX || h >= KMAX) return;
    for (int m = 0; m < 2; m++)
        e[h][g][f][m] = c * d[h][g][f][m] + d[h][g][f][1 - m];
}
