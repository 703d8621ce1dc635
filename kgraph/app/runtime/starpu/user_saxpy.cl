/* A user's own OpenCL kernel (not in the kgraph corpus): y = a * x + y over n floats.
 * The walk-through of docs/RUNTIME.md exports it with `kgraph export --kernels` and runs it as a StarPU
 * codelet (user_codelet.c) whose performance model is kgraph's. */
__kernel void user_saxpy(const int n, const float a, __global const float *x, __global float *y) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
