/* Adaptive perfmodel example (docs/RUNTIME.md, "Adaptive perfmodel"): the walk-through's user_saxpy.cl in a
 * StarPU codelet whose model is kgraph_starpu_model_init_adaptive, run for ROUNDS rounds of TASKS tasks under
 * dmda; each task's callback (kgraph_starpu_callback) feeds its measured time (StarPU profiling) back.
 * Built with `make -C kgraph/app/runtime/starpu adaptive MODEL_DIR=... BUILD=...`.
 *
 *   adaptive_codelet KERNEL.cl DEVICE_ID [ROUNDS [TASKS [N]]]
 *
 * Prints per round "adaptive_round R predicted_us P measured_us M" (P: mean of the tasks' task->predicted,
 * M: geometric mean of their measured times), then
 *   "adaptive_codelet rounds R prior_us Q first_predicted_us F posterior_us P measured_us M observations K
 *    observe_failures X warm_start 0|1 cost_ns_static S cost_ns_adaptive A correct 0|1 cost_calibrations C"
 * Q: kgraph's (static) prediction; F: the dmda estimate of the first task of the run (== Q in a cold run, the
 * persisted posterior in a warm one, 0 when KGRAPH_PERFMODEL_CALIBRATE_WIDTH leaves it to StarPU's
 * calibration: dmda does not set task->predicted for a NAN cost; C: cost-function calls answered NAN for that reason); P: the estimate after the last round; M: geometric mean of all measured
 * times of this run; S, A: median ns per kgraph_starpu_cost call, static vs adaptive (warm), over 21 rounds
 * of 20,000 calls. History files: $KGRAPH_PERFMODEL_DIR. Exit 0 when results are exact, every task was
 * observed and, in a cold run, P is closer than Q to M in log space (or Q is already within 5 %; a warm
 * run's P also weighs earlier runs' times, which may differ from this run's).
 */
#include "kgraph_model.h"
#include "kgraph_starpu.h"
#include "user_saxpy_codelet.h"
#include <math.h>
#include <starpu.h>
#include <starpu_opencl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median ns per kgraph_starpu_cost call on `task` for `arch` (21 rounds of `calls`). */
static double cost_ns(struct starpu_task *task, struct starpu_perfmodel_arch *arch, int calls) {
  double rounds[21], sink = 0.0;
  int r, i;
  for (r = 0; r < 21; ++r) {
    double t0 = now_ns();
    for (i = 0; i < calls; ++i) sink += kgraph_starpu_cost(task, arch, 0);
    rounds[r] = (now_ns() - t0) / calls;
  }
  qsort(rounds, 21, sizeof *rounds, cmp);
  return sink != 0.0 ? rounds[10] : NAN;
}

int main(int argc, char **argv) {
  int rounds, tasks, n, device, r, t, i, correct = 1, worker, ok;
  struct saxpy_arg arg = {2.0f};
  struct starpu_task **submitted;
  starpu_data_handle_t hx, hy;
  struct starpu_perfmodel_arch *arch;
  float *x, *y;
  double prior, first = NAN, posterior, sum_log_all = 0.0, static_ns, adaptive_ns;
  long n_all = 0;
  if (argc < 3) {
    fprintf(stderr, "usage: %s KERNEL.cl DEVICE_ID [ROUNDS [TASKS [N]]]\n", argv[0]);
    return 2;
  }
  rounds = argc > 3 ? atoi(argv[3]) : 4;
  tasks = argc > 4 ? atoi(argv[4]) : 6;
  n = argc > 5 ? atoi(argv[5]) : 1 << 18;
  device = kgraph_device_index(argv[2]);
  if (rounds < 1 || tasks < 1 || n < 1 || device < 0) {
    fprintf(stderr, "%s: bad ROUNDS/TASKS/N, or device %s: %s\n", argv[0], argv[2], kgraph_strerror(device));
    return 2;
  }
  if (kgraph_starpu_model_init_adaptive(&user_saxpy_model, "user_saxpy", user_saxpy_launch) != 0 ||
      kgraph_starpu_map_arch(STARPU_OPENCL_WORKER, -1, device) != 0) {
    fprintf(stderr, "%s: user_saxpy is not in this export (kgraph export --kernels user_saxpy.cl)\n", argv[0]);
    return 2;
  }
  if (starpu_init(NULL) != 0) return 2;
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE); /* the measured times come from profiling_info */
  if (starpu_opencl_worker_get_count() == 0) {
    fprintf(stderr, "%s: StarPU sees no OpenCL device (PoCL: STARPU_OPENCL_ON_CPUS=1, OCL_ICD_VENDORS)\n", argv[0]);
    starpu_shutdown();
    return 2;
  }
  if (starpu_opencl_load_opencl_from_file(argv[1], &user_saxpy_program, NULL) != 0) {
    fprintf(stderr, "%s: cannot build %s\n", argv[0], argv[1]);
    starpu_shutdown();
    return 2;
  }
  starpu_worker_get_ids_by_type(STARPU_OPENCL_WORKER, &worker, 1);
  arch = starpu_worker_get_perf_archtype(worker, 0);
  x = malloc(n * sizeof(float));
  y = malloc(n * sizeof(float));
  for (i = 0; i < n; ++i) {
    x[i] = (float)(i % 7);
    y[i] = 0.0f;
  }
  /* one pair of vectors, so the tasks run one after the other (RW on y) and each measures the kernel alone */
  starpu_vector_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t)x, n, sizeof(float));
  starpu_vector_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t)y, n, sizeof(float));
  submitted = calloc(tasks, sizeof *submitted);
  for (r = 0; r < rounds; ++r) {
    double predicted = 0.0, sum_log = 0.0;
    for (t = 0; t < tasks; ++t) {
      submitted[t] = starpu_task_create();
      submitted[t]->cl = &user_saxpy_codelet;
      submitted[t]->handles[0] = hx;
      submitted[t]->handles[1] = hy;
      submitted[t]->cl_arg = &arg;
      submitted[t]->cl_arg_size = sizeof arg;
      submitted[t]->callback_func = kgraph_starpu_callback; /* observed time -> the adaptive model */
      submitted[t]->destroy = 0;
      if (starpu_task_submit(submitted[t]) != 0) return 2;
    }
    starpu_task_wait_for_all();
    for (t = 0; t < tasks; ++t) {
      struct starpu_profiling_task_info *info = submitted[t]->profiling_info;
      double m = starpu_timing_timespec_delay_us(&info->start_time, &info->end_time);
      if (r == 0 && t == 0) first = submitted[t]->predicted;
      predicted += submitted[t]->predicted;
      sum_log += log(m);
      starpu_task_destroy(submitted[t]);
    }
    sum_log_all += sum_log;
    n_all += tasks;
    printf("adaptive_round %d predicted_us %.6g measured_us %.6g\n", r + 1, predicted / tasks, exp(sum_log / tasks));
  }
  /* the estimate now, kgraph's prior, and the cost function's price: static (prior; the model evaluated) vs
   * adaptive (a warm key: one hash lookup) */
  submitted[0] = starpu_task_create();
  submitted[0]->cl = &user_saxpy_codelet;
  submitted[0]->handles[0] = hx;
  submitted[0]->handles[1] = hy;
  submitted[0]->cl_arg = &arg;
  posterior = kgraph_starpu_cost(submitted[0], arch, 0);
  kgraph_starpu_set_adaptive(0);
  prior = kgraph_starpu_cost(submitted[0], arch, 0);
  static_ns = cost_ns(submitted[0], arch, 20000);
  kgraph_starpu_set_adaptive(1);
  adaptive_ns = cost_ns(submitted[0], arch, 20000);
  submitted[0]->destroy = 0;
  starpu_task_destroy(submitted[0]);
  starpu_data_unregister(hx);
  starpu_data_unregister(hy);
  for (i = 0; i < n; ++i)
    if (y[i] != (float)(rounds * tasks) * 2.0f * (float)(i % 7)) correct = 0;
  starpu_opencl_unload_opencl(&user_saxpy_program);
  starpu_shutdown();
  {
    double m = exp(sum_log_all / n_all);
    ok = correct && kgraph_starpu_observations() == (unsigned long)n_all &&
         (first != prior || fabs(log(posterior / m)) < fabs(log(prior / m)) || fabs(log(prior / m)) < 0.05);
    printf("adaptive_codelet rounds %d prior_us %.17g first_predicted_us %.17g posterior_us %.17g measured_us %.6g "
           "observations %lu observe_failures %lu warm_start %d cost_ns_static %.1f cost_ns_adaptive %.1f correct %d "
           "cost_calibrations %lu\n",
           rounds, prior, first, posterior, m, kgraph_starpu_observations(), kgraph_starpu_observe_failures(),
           first != prior, static_ns, adaptive_ns, correct, kgraph_starpu_calibrations());
  }
  if (kgraph_starpu_save() != 0) ok = 0;
  free(submitted);
  free(x);
  free(y);
  return ok ? 0 : 1;
}
