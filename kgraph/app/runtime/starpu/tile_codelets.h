/* Tile tasks of the tiled Cholesky / GEMM workload: CPU (functions of the C corpus, data/corpus/c) and OpenCL implementations
 * (kernels/tile_*.cl), codelets, and the per-task record (kind, worker, predicted, measured). */
#ifndef KGRAPH_TILE_CODELETS_H
#define KGRAPH_TILE_CODELETS_H
#include <starpu.h>

enum tile_kind { TILE_POTRF, TILE_TRSM, TILE_SYRK, TILE_GEMM, TILE_NKINDS };
extern const char *const tile_kernel_names[TILE_NKINDS];  /* "tile_potrf", ... (OpenCL kernel names) */
extern struct starpu_codelet tile_codelets[TILE_NKINDS];
extern struct starpu_perfmodel tile_models[TILE_NKINDS];

/* cl_arg of every tile task; measured_us is filled by the implementation that ran. */
struct tile_arg {
  int n;          /* tile size */
  float alpha;    /* gemm only */
  enum tile_kind kind;
  double measured_us;
};

/* Load kernels/tile_*.cl from `kernel_dir` on every OpenCL device; 0 on success. */
int tile_opencl_init(const char *kernel_dir);
void tile_opencl_shutdown(void);
/* The NDRange each kind's OpenCL kernel is launched with (also what the kgraph model is asked about). */
void tile_ndrange(enum tile_kind kind, int n, size_t global[2], size_t local[2], int *dims);
/* CPU workers: the C corpus function each kind calls (tile_cpu_functions[kind], e.g. "gemm_blocked_s")
   and its scalar arguments at tile size n (ld = n), in signature order; returns their number. */
extern const char *const tile_cpu_functions[TILE_NKINDS];
int tile_cpu_call(enum tile_kind kind, int n, double args[6]);
/* data/corpus/c (compiled with -DKG_FP32): the functions the CPU implementations call */
void potrf_blocked_s(int n, float *A, int lda);
void trsm_blocked_s(int m, int n, const float *L, int ldl, float *B, int ldb);
void syrk_blocked_s(int n, int k, const float *A, int lda, float *C, int ldc);
void gemm_blocked_s(int m, int n, int k, const float *A, int lda, const float *B, int ldb, float *C, int ldc);
#endif
