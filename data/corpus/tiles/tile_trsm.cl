/* B = B * L^-T (L lower triangular, n x n column-major): each work-item solves one row of B. */
__kernel void tile_trsm(const int n, __global const float *l, __global float *b) {
  const int r = get_global_id(0);
  if (r >= n) return;
  for (int j = 0; j < n; ++j) {
    float x = b[r + j * n];
    for (int k = 0; k < j; ++k) x -= b[r + k * n] * l[j + k * n];
    b[r + j * n] = x / l[j + j * n];
  }
}
