/* y := alpha * A x + beta * y for symmetric A (n x n, row-major) of which only the lower
 * triangle is read: A(i,c) for c > i is taken from A(c,i).
 * x is staged through local memory one work-group-sized chunk at a time, so every work-item
 * (also those past n) takes part in the barriers. */
__kernel void symv_lower_local(const int n, const float alpha, const float beta, __global const float *a,
                               __global const float *x, __global float *y, __local float *xs)
{
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int lsz = get_local_size(0);
    float acc = 0.0f;

    for (int t = 0; t < n; t += lsz) {
        int j = t + lid;
        xs[lid] = (j < n) ? x[j] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < n) {
            int len = min(lsz, n - t);
            for (int jj = 0; jj < len; jj++) {
                int c = t + jj;
                float aic = (c <= i) ? a[i * n + c] : a[c * n + i];
                acc += aic * xs[jj];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (i < n)
        y[i] = alpha * acc + beta * y[i];
}
