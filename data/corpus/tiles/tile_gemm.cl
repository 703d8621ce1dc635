/* C = C + alpha * A * B^T on n x n column-major tiles; one work-item per element of C. */
__kernel void tile_gemm(const int n, const float alpha, __global const float *a,
                        __global const float *b, __global float *c) {
  const int i = get_global_id(0), j = get_global_id(1);
  if (i >= n || j >= n) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[i + k * n] * b[j + k * n];
  c[i + j * n] += alpha * s;
}
