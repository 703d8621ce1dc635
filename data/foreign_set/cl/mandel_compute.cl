__kernel void mandel_compute(__global int *a, int b, int c, int d)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= b || y >= c) return;
    float cr = -2.0f + 3.0f * x / b, ci = -1.5f + 3.0f * y / c;
    float zr = 0.0f, zi = 0.0f;
    int n = 0;
    while (n < d && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        n++;
    }
    a[y * b + x] = n;
}
