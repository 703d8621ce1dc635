/* kgraph performance models for StarPU (see kgraph_starpu.h). */
#include "kgraph_starpu.h"
#include "kgraph_model.h"
#include <math.h>
#include <string.h>
#include <time.h>

#define KGRAPH_STARPU_MAX_MODELS 64
#define KGRAPH_STARPU_MAX_MAPS 32

struct model_entry {
  struct starpu_perfmodel *model;
  int kernel;
  kgraph_starpu_launch_fn launch;
};
struct arch_map {
  enum starpu_worker_archtype type;
  int devid, device;
};

static struct model_entry models[KGRAPH_STARPU_MAX_MODELS];
static int n_models;
static struct arch_map maps[KGRAPH_STARPU_MAX_MAPS];
static int n_maps;
static unsigned long calls, failures;
static unsigned long long cost_ns;

int kgraph_starpu_model_init(struct starpu_perfmodel *model, const char *kernel, kgraph_starpu_launch_fn launch) {
  int k = kgraph_kernel_index(kernel);
  if (k < 0 || n_models >= KGRAPH_STARPU_MAX_MODELS || !model || !launch) return -1;
  memset(model, 0, sizeof *model);
  model->type = STARPU_PER_ARCH;
  model->symbol = kernel;
  model->arch_cost_function = kgraph_starpu_cost;
  models[n_models].model = model;
  models[n_models].kernel = k;
  models[n_models].launch = launch;
  ++n_models;
  return 0;
}

int kgraph_starpu_map_arch(enum starpu_worker_archtype type, int devid, int device_index) {
  if (device_index < 0 || device_index >= KGRAPH_N_DEVICES || n_maps >= KGRAPH_STARPU_MAX_MAPS) return -1;
  maps[n_maps].type = type;
  maps[n_maps].devid = devid;
  maps[n_maps].device = device_index;
  ++n_maps;
  return 0;
}

static int device_of(const struct starpu_perfmodel_arch *arch) {
  int i;
  if (!arch || arch->ndevices < 1) return -1;
  for (i = 0; i < n_maps; ++i)
    if (maps[i].type == arch->devices[0].type && (maps[i].devid < 0 || maps[i].devid == arch->devices[0].devid))
      return maps[i].device;
  return -1;
}

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

double kgraph_starpu_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl) {
  unsigned long long t0 = now_ns();
  double features[KGRAPH_N_LAUNCH], cost = NAN;
  kgraph_launch launch;
  kgraph_prediction p;
  int i, device = device_of(arch);
  struct model_entry *e = NULL;
  (void)nimpl;
  for (i = 0; task && task->cl && i < n_models; ++i)
    if (models[i].model == task->cl->model) { e = &models[i]; break; }
  if (e && device >= 0) {
    memset(&launch, 0, sizeof launch);
    launch.global[0] = launch.global[1] = launch.global[2] = 1.0;
    launch.local[0] = launch.local[1] = launch.local[2] = 1.0;
    e->launch(task, &launch);
    if (kgraph_features(e->kernel, launch.dims, launch.global, launch.local, launch.args, launch.n_args,
                        device, features) == KGRAPH_OK &&
        kgraph_predict_index(e->kernel, features, device, &p) == KGRAPH_OK)
      cost = p.time_us;
  }
  __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
  if (isnan(cost)) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&cost_ns, now_ns() - t0, __ATOMIC_RELAXED);
  return cost;
}

unsigned long kgraph_starpu_calls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }
unsigned long kgraph_starpu_failures(void) { return __atomic_load_n(&failures, __ATOMIC_RELAXED); }
double kgraph_starpu_cost_ns(void) { return (double)__atomic_load_n(&cost_ns, __ATOMIC_RELAXED); }
