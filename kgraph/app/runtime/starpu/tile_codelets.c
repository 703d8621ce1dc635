/* Tile tasks: CPU and OpenCL implementations and codelets (see tile_codelets.h). Tiles are n x n,
 * column-major, float; semantics match kernels/tile_*.cl exactly. CPU: functions of the C corpus. */
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

/* ---------------------------------------------------------------- CPU implementations
 * Functions of the C corpus (data/corpus/c, compiled with -DKG_FP32: the `blocked` fp32 variants the C
 * datasets measured on one core; tile_codelets.h declares them). Column-major, leading dimension = the
 * StarPU matrix's ld. Semantics (= kernels/tile_*.cl):
 *   POTRF  A := L, A = L L^T (lower)                        potrf_blocked_s(n, A, lda)
 *   TRSM   B := B L^{-T}                                    trsm_blocked_s(n, n, L, ldl, B, ldb)
 *   SYRK   lower(C) -= A A^T                                syrk_blocked_s(n, n, A, lda, C, ldc)
 *   GEMM   C += alpha A B^T; the corpus does C -= A B^T: alpha = -1 directly, alpha = +1 as
 *          C := -(-C - A B^T) (two exact negations, O(n^2)); other alphas are not supported. */
static void negate(float *c, int n, int ld) {
  int i, j;
  for (j = 0; j < n; ++j)
    for (i = 0; i < n; ++i) c[i + (long)j * ld] = -c[i + (long)j * ld];
}

static void cpu_func(void *buffers[], void *cl_arg) {
  struct tile_arg *arg = cl_arg;
  double t0 = now_us();
  float *x0 = (float *)STARPU_MATRIX_GET_PTR(buffers[0]), *x1, *x2;
  int n = arg->n, ld0 = (int)STARPU_MATRIX_GET_LD(buffers[0]), ld1, ld2;
  switch (arg->kind) {
  case TILE_POTRF: potrf_blocked_s(n, x0, ld0); break;
  case TILE_TRSM:
    x1 = (float *)STARPU_MATRIX_GET_PTR(buffers[1]); ld1 = (int)STARPU_MATRIX_GET_LD(buffers[1]);
    trsm_blocked_s(n, n, x0, ld0, x1, ld1);
    break;
  case TILE_SYRK:
    x1 = (float *)STARPU_MATRIX_GET_PTR(buffers[1]); ld1 = (int)STARPU_MATRIX_GET_LD(buffers[1]);
    syrk_blocked_s(n, n, x0, ld0, x1, ld1);
    break;
  default:
    x1 = (float *)STARPU_MATRIX_GET_PTR(buffers[1]); ld1 = (int)STARPU_MATRIX_GET_LD(buffers[1]);
    x2 = (float *)STARPU_MATRIX_GET_PTR(buffers[2]); ld2 = (int)STARPU_MATRIX_GET_LD(buffers[2]);
    if (arg->alpha == -1.0f) {
      gemm_blocked_s(n, n, n, x0, ld0, x1, ld1, x2, ld2);
    } else if (arg->alpha == 1.0f) {
      negate(x2, n, ld2);
      gemm_blocked_s(n, n, n, x0, ld0, x1, ld1, x2, ld2);
      negate(x2, n, ld2);
    } else {
      STARPU_ABORT_MSG("tile_gemm on CPU: alpha must be 1 or -1 (got %g)", arg->alpha);
    }
  }
  arg->measured_us = now_us() - t0;
}

/* The arguments of the C function a CPU task calls, in signature order (the C-function model's launch). */
int tile_cpu_call(enum tile_kind kind, int n, double args[6]) {
  switch (kind) {
  case TILE_POTRF: args[0] = n; args[1] = n; return 2;                                   /* n, lda */
  case TILE_TRSM: args[0] = n; args[1] = n; args[2] = n; args[3] = n; return 4;          /* m, n, ldl, ldb */
  case TILE_SYRK: args[0] = n; args[1] = n; args[2] = n; args[3] = n; return 4;          /* n, k, lda, ldc */
  default: args[0] = args[1] = args[2] = args[3] = args[4] = args[5] = n; return 6;      /* m, n, k, lda, ldb, ldc */
  }
}

const char *const tile_cpu_functions[TILE_NKINDS] = {"potrf_blocked_s", "trsm_blocked_s", "syrk_blocked_s",
                                                     "gemm_blocked_s"};

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
