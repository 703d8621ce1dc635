/* Walk-through (docs/RUNTIME.md, "Your own kernel under StarPU"): a user's OpenCL kernel (user_saxpy.cl)
 * in a StarPU codelet whose performance model is kgraph's, exported with
 *   kgraph export --format c --out MODEL_DIR --kernels user_saxpy.cl --only --device device.json
 * and built with `make -C kgraph/app/runtime/starpu example MODEL_DIR=... BUILD=...`.
 *
 *   user_codelet KERNEL.cl DEVICE_ID [TASKS [N]]
 *
 * runs TASKS independent saxpy tasks of N floats each (OpenCL implementation only) under the scheduler of
 * STARPU_SCHED (dmda: it asks the perfmodel for every task), then checks that
 *   - StarPU called the kgraph cost function (kgraph_starpu_calls() >= TASKS, no failures),
 *   - each task's expected length (task->predicted) is kgraph's prediction for its launch,
 *   - every result is exact (y = 2 x + t, small integers in float).
 * Prints "user_codelet tasks T cost_calls C cost_failures F predicted_us P model_agrees 0|1 correct 0|1"
 * and exits 0 only when every check holds (1: a check failed, 2: usage or setup error).
 */
#include "kgraph_model.h"
#include "kgraph_starpu.h"
#include "user_saxpy_codelet.h"
#include <math.h>
#include <starpu.h>
#include <starpu_opencl.h>
#include <stdio.h>
#include <stdlib.h>

/* kgraph's prediction (µs) for a task's launch on device index `device`, asked directly. */
static double direct_prediction(struct starpu_task *task, int device) {
  kgraph_launch launch = {.global = {1, 1, 1}, .local = {1, 1, 1}};
  double features[KGRAPH_N_LAUNCH];
  kgraph_prediction p;
  int kernel = kgraph_kernel_index("user_saxpy");
  user_saxpy_launch(task, &launch);
  if (kgraph_features(kernel, launch.dims, launch.global, launch.local, launch.args, launch.n_args, device,
                      features) != KGRAPH_OK || kgraph_predict_index(kernel, features, device, &p) != KGRAPH_OK)
    return NAN;
  return p.time_us;
}

int main(int argc, char **argv) {
  int tasks, n, device, t, i, agrees = 1, correct = 1;
  struct saxpy_arg arg = {2.0f};
  struct starpu_task **submitted;
  starpu_data_handle_t *hx, *hy;
  float **x, **y;
  double predicted = 0.0;
  if (argc < 3) {
    fprintf(stderr, "usage: %s KERNEL.cl DEVICE_ID [TASKS [N]]\n", argv[0]);
    return 2;
  }
  tasks = argc > 3 ? atoi(argv[3]) : 8;
  n = argc > 4 ? atoi(argv[4]) : 1 << 16;
  device = kgraph_device_index(argv[2]);
  if (tasks < 1 || n < 1 || device < 0) {
    fprintf(stderr, "%s: bad TASKS/N, or device %s: %s\n", argv[0], argv[2], kgraph_strerror(device));
    return 2;
  }
  /* the perfmodel: kgraph's prediction of user_saxpy, OpenCL workers mapped to the exported device */
  if (kgraph_starpu_model_init(&user_saxpy_model, "user_saxpy", user_saxpy_launch) != 0 ||
      kgraph_starpu_map_arch(STARPU_OPENCL_WORKER, -1, device) != 0) {
    fprintf(stderr, "%s: user_saxpy is not in this export (kgraph export --kernels user_saxpy.cl)\n", argv[0]);
    return 2;
  }
  if (starpu_init(NULL) != 0) return 2;
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
  submitted = calloc(tasks, sizeof *submitted);
  hx = calloc(tasks, sizeof *hx);
  hy = calloc(tasks, sizeof *hy);
  x = calloc(tasks, sizeof *x);
  y = calloc(tasks, sizeof *y);
  for (t = 0; t < tasks; ++t) {
    x[t] = malloc(n * sizeof(float));
    y[t] = malloc(n * sizeof(float));
    for (i = 0; i < n; ++i) {
      x[t][i] = (float)(i % 7);
      y[t][i] = (float)t;
    }
    starpu_vector_data_register(&hx[t], STARPU_MAIN_RAM, (uintptr_t)x[t], n, sizeof(float));
    starpu_vector_data_register(&hy[t], STARPU_MAIN_RAM, (uintptr_t)y[t], n, sizeof(float));
    submitted[t] = starpu_task_create();
    submitted[t]->cl = &user_saxpy_codelet;
    submitted[t]->handles[0] = hx[t];
    submitted[t]->handles[1] = hy[t];
    submitted[t]->cl_arg = &arg;
    submitted[t]->cl_arg_size = sizeof arg;
    submitted[t]->destroy = 0;
    if (starpu_task_submit(submitted[t]) != 0) return 2;
  }
  starpu_task_wait_for_all();
  for (t = 0; t < tasks; ++t) {  /* the scheduler's expected length is kgraph's answer */
    double want = direct_prediction(submitted[t], device);
    predicted += submitted[t]->predicted;
    if (!(fabs(submitted[t]->predicted - want) <= 1e-6 * want)) agrees = 0;
    starpu_task_destroy(submitted[t]);
  }
  for (t = 0; t < tasks; ++t) {
    starpu_data_unregister(hx[t]);
    starpu_data_unregister(hy[t]);
    for (i = 0; i < n; ++i)
      if (y[t][i] != 2.0f * (float)(i % 7) + (float)t) correct = 0;
    free(x[t]);
    free(y[t]);
  }
  starpu_opencl_unload_opencl(&user_saxpy_program);
  starpu_shutdown();
  printf("user_codelet tasks %d cost_calls %lu cost_failures %lu predicted_us %.6g model_agrees %d correct %d\n",
         tasks, kgraph_starpu_calls(), kgraph_starpu_failures(), predicted / tasks, agrees, correct);
  free(submitted); free(hx); free(hy); free(x); free(y);
  return agrees && correct && kgraph_starpu_failures() == 0 && kgraph_starpu_calls() >= (unsigned long)tasks ? 0 : 1;
}
