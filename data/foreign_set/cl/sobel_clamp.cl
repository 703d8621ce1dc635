inline int cl_at(int v, int hi) { return clamp(v, 0, hi - 1); }
__kernel void sobel_clamp(__global const uchar *a, __global uchar *b, int c, int d)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= c || y >= d) return;
    int gx = 0, gy = 0;
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) {
            int v = a[cl_at(y + j, d) * c + cl_at(x + i, c)];
            gx += i * (2 - j * j) * v;
            gy += j * (2 - i * i) * v;
        }
    b[y * c + x] = (uchar)min(abs(gx) + abs(gy), 255u);
}
