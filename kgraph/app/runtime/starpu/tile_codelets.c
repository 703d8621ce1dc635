/* Tile tasks: CPU and OpenCL implementations and codelets (see tile_codelets.h). Tiles are n x n,
 * column-major, float; semantics match kernels/tile_*.cl exactly. */
#include "tile_codelets.h"
#include <math.h>
#include <stdio.h>
#include <starpu_opencl.h>
#include <time.h>

const char *const tile_kernel_names[TILE_NKINDS] = {"tile_potrf", "tile_trsm", "tile_syrk", "tile_gemm"};
struct starpu_perfmodel tile_models[TILE_NKINDS];
static struct starpu_opencl_program programs[TILE_NKINDS];

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

void tile_ndrange(enum tile_kind kind, int n, size_t global[2], size_t local[2], int *dims) {
  size_t l = n % 8 == 0 ? 8 : 1;
  global[1] = local[1] = 1;
  switch (kind) {
  case TILE_POTRF: *dims = 1; global[0] = local[0] = (size_t)n; break;
  case TILE_TRSM: *dims = 1; global[0] = (size_t)n; local[0] = n % 32 == 0 ? 32 : 1; break;
  default: *dims = 2; global[0] = global[1] = (size_t)n; local[0] = local[1] = l; break;
  }
}

/* ---------------------------------------------------------------- CPU implementations */
static void cpu_potrf(float *a, int n) {
  int i, j, k;
  for (k = 0; k < n; ++k) {
    a[k + k * n] = sqrtf(a[k + k * n]);
    for (i = k + 1; i < n; ++i) a[i + k * n] /= a[k + k * n];
    for (j = k + 1; j < n; ++j)
      for (i = j; i < n; ++i) a[i + j * n] -= a[i + k * n] * a[j + k * n];
  }
}

static void cpu_trsm(const float *l, float *b, int n) {
  int r, j, k;
  for (j = 0; j < n; ++j)
    for (r = 0; r < n; ++r) {
      float x = b[r + j * n];
      for (k = 0; k < j; ++k) x -= b[r + k * n] * l[j + k * n];
      b[r + j * n] = x / l[j + j * n];
    }
}

static void cpu_gemm(const float *a, const float *b, float *c, int n, float alpha, int lower_only) {
  int i, j, k;
  for (j = 0; j < n; ++j)
    for (i = lower_only ? j : 0; i < n; ++i) {
      float s = 0.0f;
      for (k = 0; k < n; ++k) s += a[i + k * n] * b[j + k * n];
      c[i + j * n] += alpha * s;
    }
}

static void cpu_func(void *buffers[], void *cl_arg) {
  struct tile_arg *arg = cl_arg;
  double t0 = now_us();
  float *x0 = (float *)STARPU_MATRIX_GET_PTR(buffers[0]);
  int n = arg->n;
  switch (arg->kind) {
  case TILE_POTRF: cpu_potrf(x0, n); break;
  case TILE_TRSM: cpu_trsm(x0, (float *)STARPU_MATRIX_GET_PTR(buffers[1]), n); break;
  case TILE_SYRK: cpu_gemm(x0, x0, (float *)STARPU_MATRIX_GET_PTR(buffers[1]), n, -1.0f, 1); break;
  default:
    cpu_gemm(x0, (float *)STARPU_MATRIX_GET_PTR(buffers[1]), (float *)STARPU_MATRIX_GET_PTR(buffers[2]),
             n, arg->alpha, 0);
  }
  arg->measured_us = now_us() - t0;
}

/* ------------------------------------------------------------- OpenCL implementations */
static void opencl_func(void *buffers[], void *cl_arg) {
  struct tile_arg *arg = cl_arg;
  double t0 = now_us();
  int devid = starpu_worker_get_devid(starpu_worker_get_id()), dims, i, nbuf = 0;
  cl_kernel kernel;
  cl_command_queue queue;
  cl_int err;
  size_t global[2], local[2];
  cl_mem mem[3];
  if (starpu_opencl_load_kernel(&kernel, &queue, &programs[arg->kind], tile_kernel_names[arg->kind], devid) != CL_SUCCESS)
    STARPU_ABORT_MSG("cannot load OpenCL kernel %s", tile_kernel_names[arg->kind]);
  nbuf = arg->kind == TILE_POTRF ? 1 : arg->kind == TILE_GEMM ? 3 : 2;
  for (i = 0; i < nbuf; ++i) mem[i] = (cl_mem)STARPU_MATRIX_GET_DEV_HANDLE(buffers[i]);
  err = clSetKernelArg(kernel, 0, sizeof(int), &arg->n);
  if (arg->kind == TILE_GEMM) {
    err |= clSetKernelArg(kernel, 1, sizeof(float), &arg->alpha);
    for (i = 0; i < 3; ++i) err |= clSetKernelArg(kernel, 2 + i, sizeof(cl_mem), &mem[i]);
  } else {
    for (i = 0; i < nbuf; ++i) err |= clSetKernelArg(kernel, 1 + i, sizeof(cl_mem), &mem[i]);
  }
  if (err != CL_SUCCESS) STARPU_OPENCL_REPORT_ERROR(err);
  tile_ndrange(arg->kind, arg->n, global, local, &dims);
  err = clEnqueueNDRangeKernel(queue, kernel, (cl_uint)dims, NULL, global, local, 0, NULL, NULL);
  if (err != CL_SUCCESS) STARPU_OPENCL_REPORT_ERROR(err);
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
  arg->measured_us = now_us() - t0;
}

int tile_opencl_init(const char *kernel_dir) {
  char path[4096];
  int k;
  for (k = 0; k < TILE_NKINDS; ++k) {
    snprintf(path, sizeof path, "%s/%s.cl", kernel_dir, tile_kernel_names[k]);
    if (starpu_opencl_load_opencl_from_file(path, &programs[k], NULL) != 0) {
      fprintf(stderr, "cannot build %s\n", path);
      return -1;
    }
  }
  return 0;
}

void tile_opencl_shutdown(void) {
  int k;
  for (k = 0; k < TILE_NKINDS; ++k) starpu_opencl_unload_opencl(&programs[k]);
}

struct starpu_codelet tile_codelets[TILE_NKINDS] = {
  {.cpu_funcs = {cpu_func}, .opencl_funcs = {opencl_func}, .nbuffers = 1, .modes = {STARPU_RW},
   .name = "tile_potrf", .model = &tile_models[TILE_POTRF]},
  {.cpu_funcs = {cpu_func}, .opencl_funcs = {opencl_func}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW},
   .name = "tile_trsm", .model = &tile_models[TILE_TRSM]},
  {.cpu_funcs = {cpu_func}, .opencl_funcs = {opencl_func}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW},
   .name = "tile_syrk", .model = &tile_models[TILE_SYRK]},
  {.cpu_funcs = {cpu_func}, .opencl_funcs = {opencl_func}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW},
   .name = "tile_gemm", .model = &tile_models[TILE_GEMM]},
};
