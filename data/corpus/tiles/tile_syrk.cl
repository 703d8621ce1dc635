/* C = C - A * A^T on the lower triangle of n x n column-major tiles (upper part untouched). */
__kernel void tile_syrk(const int n, __global const float *a, __global float *c) {
  const int i = get_global_id(0), j = get_global_id(1);
  if (i >= n || j > i) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k) s += a[i + k * n] * a[j + k * n];
  c[i + j * n] -= s;
}
