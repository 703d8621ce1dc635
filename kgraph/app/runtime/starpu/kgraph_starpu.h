/* kgraph performance models for StarPU: an exported kgraph model (kgraph_model.c) as a
 * struct starpu_perfmodel of type STARPU_PER_ARCH whose arch_cost_function asks the model.
 *
 *   static struct starpu_perfmodel gemm_model;
 *   kgraph_starpu_model_init(&gemm_model, "tile_gemm", gemm_launch);   // gemm_launch: task -> NDRange/args
 *   kgraph_starpu_map_arch(STARPU_CPU_WORKER, -1, kgraph_device_index("pocl-skylake-avx512-intel-xeon"));
 *   kgraph_starpu_map_arch(STARPU_OPENCL_WORKER, -1, kgraph_device_index("nvidia-h200"));
 *   gemm_codelet.model = &gemm_model;
 *
 * The kernel is a name of the export's code table: a corpus kernel id, a tile kernel, or a kernel of
 * your own exported with `kgraph export --format c --kernels my.cl` (its function name). The device ids
 * are those of the export's device table (kgraph_device_ids; the shipped compact head: 0 = nvidia-h200,
 * 1 = pocl-skylake-avx512-intel-xeon, 2 = nvidia-h100, then any `--device` of the export; kgraph_model.h
 * and `kgraph export` list them); kgraph_device_index returns KGRAPH_E_DEVICE (< 0) for any other id,
 * which kgraph_starpu_map_arch rejects. A complete program with a user's kernel: user_codelet.c
 * (docs/RUNTIME.md, "Walk-through").
 */
#ifndef KGRAPH_STARPU_H
#define KGRAPH_STARPU_H
#include <starpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launch of a task as the kgraph model sees it (the OpenCL NDRange of its kernel). */
typedef struct {
  int dims;
  double global[3], local[3];  /* unused dimensions = 1 */
  double args[8];              /* scalar kernel arguments in parameter order */
  int n_args;
} kgraph_launch;

typedef void (*kgraph_starpu_launch_fn)(struct starpu_task *task, kgraph_launch *launch);

/* Make `model` a STARPU_PER_ARCH model predicting kernel `kernel` (a name in the exported code
 * table). Returns 0, or -1 if the kernel is not registered in the export or the table is full. */
int kgraph_starpu_model_init(struct starpu_perfmodel *model, const char *kernel, kgraph_starpu_launch_fn launch);

/* Map StarPU workers of `type` (and OpenCL/CUDA device `devid`, -1 = any) to a device index of the
 * export's device table. Returns 0, or -1 for a bad index or a full table. Unmapped archs cost NAN
 * (StarPU then treats the model as uncalibrated there). */
int kgraph_starpu_map_arch(enum starpu_worker_archtype type, int devid, int device_index);

/* The arch_cost_function: predicted time of `task` on `arch` in microseconds. */
double kgraph_starpu_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);

/* Adaptive perfmodel (issue 12 §5; kgraph_adaptive.h, docs/RUNTIME.md "Adaptive perfmodel"): as
 * kgraph_starpu_model_init, but the cost is kgraph's prediction updated by the observed times of the same
 * launch on the same arch (log-space normal-normal rule; a launch never run gets kgraph's answer, a warm one
 * tends to the geometric mean of its times; the prior's weight comes from the prediction's own 80% interval
 * when the export has one), kept in $KGRAPH_PERFMODEL_DIR (default ~/.kgraph/perfmodel) as
 * <symbol>.<archtype>_<devid>.kgpm across runs. Observations come from kgraph_starpu_observe: set
 *   task->callback_func = kgraph_starpu_callback;       (or call kgraph_starpu_observe(starpu_task_get_current())
 *                                                         from your own callback)
 * and enable profiling (STARPU_PROFILING=1 or starpu_profiling_status_set(STARPU_PROFILING_ENABLE)): the
 * measured time is profiling_info end_time - start_time, the codelet's run. KGRAPH_PERFMODEL_ADAPTIVE=0 makes
 * an adaptive model static. KGRAPH_PERFMODEL_CALIBRATE_WIDTH=R (off by default): a launch whose interval
 * hi/lo exceeds R costs NAN (dmda/dmdas: "not calibrated", run it to measure) until it has
 * KGRAPH_PERFMODEL_CALIBRATE_RUNS (default 1) observations. Returns 0 or -1 as kgraph_starpu_model_init. */
int kgraph_starpu_model_init_adaptive(struct starpu_perfmodel *model, const char *kernel, kgraph_starpu_launch_fn launch);

/* Record the measured time of a finished task of an adaptive model (in its callback). Returns 0, or -1
 * (not an adaptive kgraph model, no profiling info, unknown arch). */
int kgraph_starpu_observe(struct starpu_task *task);
/* A task callback that does only that: task->callback_func = kgraph_starpu_callback. */
void kgraph_starpu_callback(void *arg);
/* Write the histories now (they are also written at exit). Returns the number of files not written. */
int kgraph_starpu_save(void);
/* Turn the adaptive update off (0) or on (1) for every adaptive model: static kgraph answers while off
 * (observations are still recorded). For benchmarks. */
void kgraph_starpu_set_adaptive(int on);
unsigned long kgraph_starpu_observations(void);
unsigned long kgraph_starpu_observe_failures(void);

/* C-function model of CPU workers (issue 12 §3/§6; docs/RUNTIME.md "CPU workers: the C-function model").
 * When the library is built with CPU_MODEL_DIR=<dir> (make variable; <dir> holds kgcpu_model.h/.c from
 * `python -m kgraph.app.runtime.cpu_functions export`), a model given a C function here is predicted on
 * STARPU_CPU_WORKER archs by that code-free head: `function` (e.g. "gemm_blocked_s", the C corpus function
 * the CPU implementation calls) with the scalar arguments `call` fills (signature order), on one core of
 * the host's descriptor (device KGRAPH_STARPU_CPU_C_DEVICE of the export, default 0 = host-1core). Static
 * and adaptive models alike (the adaptive prior on CPU archs is this prediction). KGRAPH_STARPU_CPU_MODEL=0
 * at run time falls back to the kgraph_starpu_map_arch mapping of CPU workers (the OpenCL kernel on a
 * descriptor). Returns 0, -1 when the model is not a kgraph model, the function is not in the CPU export,
 * or there is no CPU export (built without CPU_MODEL_DIR). */
typedef int (*kgraph_starpu_cpu_call_fn)(struct starpu_task *task, double args[8]);
int kgraph_starpu_model_set_cpu_function(struct starpu_perfmodel *model, const char *function,
                                         kgraph_starpu_cpu_call_fn call);
/* 1 when CPU archs are predicted by the C-function model (built with it, not turned off), else 0. */
int kgraph_starpu_cpu_model_active(void);
/* The C-function model's prediction (µs) for `function` with `args` on its device `device` (-1: the one
   chosen by KGRAPH_STARPU_CPU_C_DEVICE), or NAN. For tests and tools. */
double kgraph_starpu_cpu_predict(const char *function, const double *args, int n_args, int device);

/* Prediction cache (issue 12 §6: cost-function overhead): kgraph's static prediction of a launch (and its
 * prior sigma) is kept per model, keyed by (device index, 64-bit hash of the kgraph_launch: the adaptive
 * model's key) and checked against the whole launch, so the answer is exactly the uncached one. Bounded:
 * 256 slots per model, open addressing; a launch that finds no free slot in its 8 probes is evaluated
 * without caching. Thread-safe (a mutex per model). On by default; KGRAPH_STARPU_CACHE=0 (or off) at run
 * time or kgraph_starpu_set_cache(0) turns it off, and with it the C-function head's per-call cache of CPU
 * archs (for measurement). Hits/misses count lookups of the static cache. */
void kgraph_starpu_set_cache(int on);
int kgraph_starpu_cache_active(void);
unsigned long kgraph_starpu_cache_hits(void);
unsigned long kgraph_starpu_cache_misses(void);

/* Counters: cost-function calls, total nanoseconds spent in it, calls answered with NAN for want of a
 * prediction (unmapped arch, model error), calls answered with NAN on purpose to let StarPU calibrate a
 * launch whose interval is wide (KGRAPH_PERFMODEL_CALIBRATE_WIDTH, adaptive models only). */
unsigned long kgraph_starpu_calls(void);
double kgraph_starpu_cost_ns(void);
unsigned long kgraph_starpu_failures(void);
unsigned long kgraph_starpu_calibrations(void);

#ifdef __cplusplus
}
#endif
#endif
