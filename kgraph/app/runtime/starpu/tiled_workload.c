/* Tiled Cholesky and tiled GEMM under StarPU with a choice of performance model.
 *
 *   tiled_workload cholesky|gemm TILES TILE kgraph|kgraph-adaptive|history|regression|none [TRACE.csv]
 *
 * Run with STARPU_SCHED=dmda (or eager for "none"), STARPU_OPENCL_ON_CPUS=1 for PoCL.
 * kgraph: KGRAPH_STARPU_CPU_DEVICE / KGRAPH_STARPU_OPENCL_DEVICE name the device ids of the
 * export's device table used for CPU workers / OpenCL devices (default: the first device).
 * CPU workers run functions of the C corpus (tile_codelets.c); built with CPU_MODEL_DIR (make), kgraph's
 * cost on CPU workers is the C-function head's prediction of that function (kgraph_starpu_model_set_cpu_function;
 * KGRAPH_STARPU_CPU_MODEL=0 turns it off: CPU workers then map to KGRAPH_STARPU_CPU_DEVICE as before).
 * kgraph-adaptive: kgraph's prediction updated by the observed times (kgraph_starpu_model_init_adaptive;
 * histories in $KGRAPH_PERFMODEL_DIR, docs/RUNTIME.md "Adaptive perfmodel"); profiling is turned on.
 * Prints one summary line; TRACE.csv gets one row per task: kind,tile,arch,predicted_us,measured_us.
 */
#include "kgraph_model.h"
#include "kgraph_starpu.h"
#include "tile_codelets.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KGRAPH_KERNEL_DIR
#define KGRAPH_KERNEL_DIR "kernels"
#endif

struct task_record {
  struct tile_arg arg;
  double predicted_us;
  enum starpu_worker_archtype arch;
};

static int adaptive;

static void record_callback(void *p) {
  struct task_record *r = p;
  struct starpu_task *task = starpu_task_get_current();
  r->predicted_us = task ? task->predicted : NAN;
  r->arch = starpu_worker_get_type(starpu_worker_get_id());
  if (adaptive) kgraph_starpu_observe(task); /* the measured time -> the adaptive model */
}

static void tile_launch(struct starpu_task *task, kgraph_launch *launch) {
  const struct tile_arg *arg = task->cl_arg;
  size_t g[2], l[2];
  int d;
  tile_ndrange(arg->kind, arg->n, g, l, &launch->dims);
  for (d = 0; d < 2; ++d) { launch->global[d] = (double)g[d]; launch->local[d] = (double)l[d]; }
  launch->args[0] = arg->n;
  launch->n_args = 1;
  if (arg->kind == TILE_GEMM) { launch->args[1] = arg->alpha; launch->n_args = 2; }
}

static int tile_cpu_args(struct starpu_task *task, double args[8]) {
  const struct tile_arg *arg = task->cl_arg;
  return tile_cpu_call(arg->kind, arg->n, args);
}

static int device_from_env(const char *var) {
  const char *id = getenv(var);
  int d = id ? kgraph_device_index(id) : 0;
  if (d < 0) { fprintf(stderr, "%s=%s is not a device of the exported model\n", var, id); exit(2); }
  return d;
}

static void setup_models(const char *kind) {
  int k;
  for (k = 0; k < TILE_NKINDS; ++k) {
    static char symbols[TILE_NKINDS][64];
    if (strcmp(kind, "kgraph") == 0 || strcmp(kind, "kgraph-adaptive") == 0) {
      adaptive = kind[6] == '-';
      if ((adaptive ? kgraph_starpu_model_init_adaptive : kgraph_starpu_model_init)(&tile_models[k], tile_kernel_names[k],
                                                                                    tile_launch) != 0) {
        fprintf(stderr, "kernel %s is not in the exported model's code table\n", tile_kernel_names[k]);
        exit(2);
      }
      if (kgraph_starpu_cpu_model_active() &&
          kgraph_starpu_model_set_cpu_function(&tile_models[k], tile_cpu_functions[k], tile_cpu_args) != 0) {
        fprintf(stderr, "function %s is not in the CPU model's export\n", tile_cpu_functions[k]);
        exit(2);
      }
    } else if (strcmp(kind, "history") == 0 || strcmp(kind, "regression") == 0) {
      memset(&tile_models[k], 0, sizeof tile_models[k]);
      snprintf(symbols[k], sizeof symbols[k], "kgraph_%s_%s", kind, tile_kernel_names[k]);
      tile_models[k].type = kind[0] == 'h' ? STARPU_HISTORY_BASED : STARPU_REGRESSION_BASED;
      tile_models[k].symbol = symbols[k];
    } else if (strcmp(kind, "none") == 0) {
      tile_codelets[k].model = NULL;
    } else {
      fprintf(stderr, "unknown model %s (kgraph|kgraph-adaptive|history|regression|none)\n", kind);
      exit(2);
    }
  }
  if (strncmp(kind, "kgraph", 6) == 0) {
    kgraph_starpu_map_arch(STARPU_CPU_WORKER, -1, device_from_env("KGRAPH_STARPU_CPU_DEVICE"));
    kgraph_starpu_map_arch(STARPU_OPENCL_WORKER, -1, device_from_env("KGRAPH_STARPU_OPENCL_DEVICE"));
  }
}

static struct task_record *records;
static int n_records;

static void submit(enum tile_kind kind, int n, float alpha, starpu_data_handle_t *h, int nh) {
  struct starpu_task *task = starpu_task_create();
  struct task_record *r = &records[n_records++];
  int i;
  r->arg.n = n; r->arg.alpha = alpha; r->arg.kind = kind; r->arg.measured_us = NAN;
  task->cl = &tile_codelets[kind];
  task->cl_arg = &r->arg;
  task->cl_arg_size = sizeof r->arg;
  task->callback_func = record_callback;
  task->callback_arg = r;
  for (i = 0; i < nh; ++i) task->handles[i] = h[i];
  if (starpu_task_submit(task) != 0) { fprintf(stderr, "task submission failed\n"); exit(1); }
}

int main(int argc, char **argv) {
  int tiles, n, i, j, k, gemm, n_tasks, n_err = 0;
  float **a, **b = NULL, **c = NULL;
  starpu_data_handle_t *ha, *hb = NULL, *hc = NULL, h[3];
  double t0, makespan_us;
  double errs_abs = 0.0;
  FILE *trace = NULL;
  if (argc < 5) {
    fprintf(stderr, "usage: %s cholesky|gemm TILES TILE kgraph|kgraph-adaptive|history|regression|none [TRACE.csv]\n", argv[0]);
    return 2;
  }
  gemm = strcmp(argv[1], "gemm") == 0;
  tiles = atoi(argv[2]);
  n = atoi(argv[3]);
  if ((!gemm && strcmp(argv[1], "cholesky") != 0) || tiles < 1 || n < 1) {
    fprintf(stderr, "bad arguments: workload must be cholesky or gemm, TILES and TILE positive\n");
    return 2;
  }
  setup_models(argv[4]);
  if (starpu_init(NULL) != 0) { fprintf(stderr, "starpu_init failed\n"); return 1; }
  if (adaptive) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  if (starpu_opencl_worker_get_count() > 0 && tile_opencl_init(getenv("KGRAPH_KERNEL_DIR") ? getenv("KGRAPH_KERNEL_DIR") : KGRAPH_KERNEL_DIR) != 0)
    return 1;
  n_tasks = gemm ? tiles * tiles * tiles : tiles * (tiles + 1) * (tiles + 2) / 6;
  records = calloc((size_t)n_tasks, sizeof *records);
  a = calloc((size_t)(tiles * tiles), sizeof *a);
  ha = calloc((size_t)(tiles * tiles), sizeof *ha);
  if (gemm) {
    b = calloc((size_t)(tiles * tiles), sizeof *b); c = calloc((size_t)(tiles * tiles), sizeof *c);
    hb = calloc((size_t)(tiles * tiles), sizeof *hb); hc = calloc((size_t)(tiles * tiles), sizeof *hc);
  }
  for (i = 0; i < tiles; ++i)
    for (j = 0; j < tiles; ++j) {
      int t = i + j * tiles, r, q;
      float **mats[3] = {a, b, c};
      starpu_data_handle_t *hs[3] = {ha, hb, hc};
      for (k = 0; k < (gemm ? 3 : 1); ++k) {
        starpu_malloc((void **)&mats[k][t], (size_t)n * n * sizeof(float));
        for (q = 0; q < n; ++q)
          for (r = 0; r < n; ++r) {
            int gr = i * n + r, gc = j * n + q;
            float v = 1.0f / (1.0f + abs(gr - gc));
            mats[k][t][r + q * n] = (gr == gc && !gemm) ? v + (float)(tiles * n) : v;
          }
        starpu_matrix_data_register(&hs[k][t], STARPU_MAIN_RAM, (uintptr_t)mats[k][t], n, n, n, sizeof(float));
      }
    }
  t0 = starpu_timing_now();
  if (gemm) {
    for (i = 0; i < tiles; ++i)
      for (j = 0; j < tiles; ++j)
        for (k = 0; k < tiles; ++k) {
          h[0] = ha[i + k * tiles]; h[1] = hb[j + k * tiles]; h[2] = hc[i + j * tiles];
          submit(TILE_GEMM, n, 1.0f, h, 3);
        }
  } else {
    for (k = 0; k < tiles; ++k) {
      h[0] = ha[k + k * tiles];
      submit(TILE_POTRF, n, 0.0f, h, 1);
      for (i = k + 1; i < tiles; ++i) { h[0] = ha[k + k * tiles]; h[1] = ha[i + k * tiles]; submit(TILE_TRSM, n, 0.0f, h, 2); }
      for (i = k + 1; i < tiles; ++i) {
        h[0] = ha[i + k * tiles]; h[1] = ha[i + i * tiles]; submit(TILE_SYRK, n, 0.0f, h, 2);
        for (j = k + 1; j < i; ++j) {
          h[0] = ha[i + k * tiles]; h[1] = ha[j + k * tiles]; h[2] = ha[i + j * tiles];
          submit(TILE_GEMM, n, -1.0f, h, 3);
        }
      }
    }
  }
  starpu_task_wait_for_all();
  makespan_us = starpu_timing_now() - t0;
  if (argc > 5 && !(trace = fopen(argv[5], "w"))) { fprintf(stderr, "cannot write %s\n", argv[5]); return 1; }
  if (trace) fprintf(trace, "kind,tile,arch,predicted_us,measured_us\n");
  for (i = 0; i < n_records; ++i) {
    struct task_record *r = &records[i];
    const char *arch = r->arch == STARPU_OPENCL_WORKER ? "opencl" : "cpu";
    if (trace) fprintf(trace, "%s,%d,%s,%.9g,%.3f\n", tile_kernel_names[r->arg.kind] + 5, n, arch, r->predicted_us, r->arg.measured_us);
    if (isfinite(r->predicted_us) && r->predicted_us > 0 && r->arg.measured_us > 0) {
      errs_abs += fabs(log(r->predicted_us / r->arg.measured_us));
      ++n_err;
    }
  }
  if (trace) fclose(trace);
  for (i = 0; i < tiles * tiles; ++i) {
    starpu_data_unregister(ha[i]);
    if (gemm) { starpu_data_unregister(hb[i]); starpu_data_unregister(hc[i]); }
  }
  { /* check the result at sampled entries against the exact formula (float, relative 2e-3) */
    int N = tiles * n, s, bad = 0;
    unsigned seed = 12345u;
    for (s = 0; s < 64 && !bad; ++s) {
      int R, Cc, P;
      double want, got = 0.0;
      seed = seed * 1103515245u + 12345u; R = (int)((seed >> 8) % (unsigned)N);
      seed = seed * 1103515245u + 12345u; Cc = (int)((seed >> 8) % (unsigned)N);
#define ELEM(m, r, c) ((double)(m)[(r) / n + ((c) / n) * tiles][(r) % n + ((c) % n) * n])
#define INIT(r, c) (1.0 / (1.0 + abs((r) - (c))))
      if (gemm) { /* C = C0 + A B^T */
        want = INIT(R, Cc);
        for (P = 0; P < N; ++P) want += INIT(R, P) * INIT(Cc, P);
        got = ELEM(c, R, Cc);
      } else { /* L L^T = A0, lower */
        if (R < Cc) { int t = R; R = Cc; Cc = t; }
        want = INIT(R, Cc) + (R == Cc ? (double)N : 0.0);
        for (P = 0; P <= Cc; ++P) got += ELEM(a, R, P) * ELEM(a, Cc, P);
      }
      if (!(fabs(got - want) <= 2e-3 * fabs(want) + 1e-4)) {
        fprintf(stderr, "wrong result at (%d, %d): %.7g, expected %.7g\n", R, Cc, got, want);
        bad = 1;
      }
#undef ELEM
#undef INIT
    }
    if (bad) return 1;
  }
  printf("workload %s tiles %d tile %d model %s makespan_ms %.3f tasks %d predicted_tasks %d "
         "mean_abs_log_error %.4f cost_calls %lu cost_ns_per_call %.1f cost_failures %lu cost_calibrations %lu\n",
         argv[1], tiles, n, argv[4], makespan_us / 1e3, n_records, n_err, n_err ? errs_abs / n_err : NAN,
         kgraph_starpu_calls(), kgraph_starpu_calls() ? kgraph_starpu_cost_ns() / kgraph_starpu_calls() : 0.0,
         kgraph_starpu_failures(), kgraph_starpu_calibrations());
  if (getenv("KGRAPH_STARPU_COST_BENCH") && strncmp(argv[4], "kgraph", 6) == 0 && starpu_cpu_worker_get_count() > 0) {
    /* ns per kgraph_starpu_cost call for a CPU worker, each kind, KGRAPH_STARPU_COST_BENCH calls (median of 5) */
    int calls = atoi(getenv("KGRAPH_STARPU_COST_BENCH")), kind, rep, q;
    struct starpu_perfmodel_arch *arch =
        starpu_worker_get_perf_archtype(starpu_worker_get_by_type(STARPU_CPU_WORKER, 0), 0);
    printf("cost_bench_cpu_ns");
    for (kind = 0; kind < TILE_NKINDS; ++kind) {
      struct starpu_task task;
      struct tile_arg targ = {n, kind == TILE_GEMM ? -1.0f : 0.0f, (enum tile_kind)kind, 0.0};
      double best[5], sink = 0.0, tmp;
      memset(&task, 0, sizeof task);
      task.cl = &tile_codelets[kind];
      task.cl_arg = &targ;
      for (rep = 0; rep < 5; ++rep) {
        double t0 = starpu_timing_now();
        for (q = 0; q < calls; ++q) sink += kgraph_starpu_cost(&task, arch, 0);
        best[rep] = (starpu_timing_now() - t0) * 1e3 / (calls > 0 ? calls : 1);
      }
      for (rep = 0; rep < 5; ++rep) /* sort for the median */
        for (q = rep + 1; q < 5; ++q) if (best[q] < best[rep]) { tmp = best[q]; best[q] = best[rep]; best[rep] = tmp; }
      printf(" %s %.1f", tile_kernel_names[kind] + 5, best[2] + 0.0 * sink);
    }
    printf("\n");
  }
  if (starpu_opencl_worker_get_count() > 0) tile_opencl_shutdown();
  starpu_shutdown();
  return 0;
}
