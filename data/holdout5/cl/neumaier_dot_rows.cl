/* Compensated dot products, one row pair per work-item: dot[r] = sum_k a[r][k] * b[r][k] for
 * row-major a and b of `len` columns. The rounding error of every product is recovered exactly with
 * fma, the error of every addition with Neumaier's variant of Kahan summation (the branch picks the
 * larger operand), and both are added back at the end, so the result is as good as a double-length sum
 * even when the row's terms cancel. abssum[r] = sum_k |a b| gives the caller the condition number. */
__kernel void neumaier_dot_rows(const int nrows, const int len,
                                __global const float *a, __global const float *b,
                                __global float *dot, __global float *abssum)
{
    const int r = get_global_id(0);
    if (r >= nrows)
        return;

    __global const float *ar = a + (size_t)r * len;
    __global const float *br = b + (size_t)r * len;
    float s = 0.0f;    /* running sum */
    float c = 0.0f;    /* accumulated low-order parts */
    float mag = 0.0f;
    for (int k = 0; k < len; k++) {
        const float x = ar[k];
        const float y = br[k];
        const float p = x * y;
        const float perr = fma(x, y, -p);  /* x * y - p, exactly */
        const float t = s + p;
        if (fabs(s) >= fabs(p))
            c += (s - t) + p;
        else
            c += (p - t) + s;
        c += perr;
        s = t;
        mag += fabs(p);
    }
    dot[r] = s + c;
    abssum[r] = mag;
}
