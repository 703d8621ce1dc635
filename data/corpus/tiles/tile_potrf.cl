/* In-place lower Cholesky of one n x n column-major tile by one work-group of n work-items
   (work-item i owns row i); the upper triangle is left as it was. */
__kernel void tile_potrf(const int n, __global float *a) {
  const int i = get_local_id(0);
  for (int k = 0; k < n; ++k) {
    if (i == k) a[k + k * n] = sqrt(a[k + k * n]);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (i > k && i < n) a[i + k * n] /= a[k + k * n];
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (i > k && i < n)
      for (int j = k + 1; j <= i; ++j) a[i + j * n] -= a[i + k * n] * a[j + k * n];
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}
