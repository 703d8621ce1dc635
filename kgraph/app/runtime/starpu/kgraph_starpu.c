/* kgraph performance models for StarPU (see kgraph_starpu.h). */
#include "kgraph_starpu.h"
#include "kgraph_model.h"
#include "kgraph_adaptive.h"
#include "kgraph_starpu_cache.h"
#include <stdio.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#if defined(KGRAPH_CPU_MODEL) && KGRAPH_CPU_MODEL
#include "kgcpu_model.h"
#endif

#define KGRAPH_STARPU_MAX_MODELS 64
#define KGRAPH_STARPU_MAX_MAPS 32
#define KGRAPH_STARPU_MAX_ARCHS 16
struct model_entry {
  struct starpu_perfmodel *model;
  int kernel;
  kgraph_starpu_launch_fn launch;
  int adaptive;
  int cpu_function;                 /* index in the CPU (C-function) export, -1: none */
  kgraph_starpu_cpu_call_fn cpu_call;
  pthread_mutex_t cpu_lock;         /* guards cpu_cache: the C head's answers of the last calls (a task is */
  struct {                          /* asked once per CPU worker, and tiled workloads repeat their calls) */
    uint64_t key;
    double cost;
    int used;
  } cpu_cache[8];
  struct kgraph_static_cache static_cache; /* kgraph's static prediction (and prior sigma) per (device, launch) */
  int n_archs; /* adaptive: the history series of each arch seen, (type, devid) -> series */
  struct {
    enum starpu_worker_archtype type;
    int devid, series;
  } archs[KGRAPH_STARPU_MAX_ARCHS];
};
struct arch_map {
  enum starpu_worker_archtype type;
  int devid, device;
};

static struct model_entry models[KGRAPH_STARPU_MAX_MODELS];
static int n_models;
static struct arch_map maps[KGRAPH_STARPU_MAX_MAPS];
static int n_maps;
static unsigned long calls, failures, calibrations, observations, observe_failures;
static pthread_mutex_t archs_lock = PTHREAD_MUTEX_INITIALIZER;
static int adaptive_off; /* kgraph_starpu_set_adaptive(0) */
static int cache_state = -1; /* static-prediction cache: -1 not read yet (KGRAPH_STARPU_CACHE), 0 off, 1 on */
static unsigned long cache_hits, cache_misses;
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
  models[n_models].adaptive = 0;
  models[n_models].cpu_function = -1;
  models[n_models].cpu_call = NULL;
  pthread_mutex_init(&models[n_models].cpu_lock, NULL);
  memset(models[n_models].cpu_cache, 0, sizeof models[n_models].cpu_cache);
  kgraph_static_cache_init(&models[n_models].static_cache);
  models[n_models].n_archs = 0;
  ++n_models;
  return 0;
}

int kgraph_starpu_model_init_adaptive(struct starpu_perfmodel *model, const char *kernel, kgraph_starpu_launch_fn launch) {
  if (kgraph_starpu_model_init(model, kernel, launch) != 0) return -1;
  if ((models[n_models - 1].adaptive = kgraph_adaptive_enabled())) kgraph_adaptive_preload(kernel); /* no I/O in cost */
  return 0;
}

void kgraph_starpu_set_adaptive(int on) { __atomic_store_n(&adaptive_off, !on, __ATOMIC_RELAXED); }

void kgraph_starpu_set_cache(int on) { __atomic_store_n(&cache_state, on ? 1 : 0, __ATOMIC_RELEASE); }

int kgraph_starpu_cache_active(void) {
  int state = __atomic_load_n(&cache_state, __ATOMIC_ACQUIRE);
  if (state < 0) {
    const char *v = getenv("KGRAPH_STARPU_CACHE");
    int want = !(v && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0)), unread = -1;
    __atomic_compare_exchange_n(&cache_state, &unread, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    state = __atomic_load_n(&cache_state, __ATOMIC_ACQUIRE);
  }
  return state == 1;
}

unsigned long kgraph_starpu_cache_hits(void) { return __atomic_load_n(&cache_hits, __ATOMIC_RELAXED); }
unsigned long kgraph_starpu_cache_misses(void) { return __atomic_load_n(&cache_misses, __ATOMIC_RELAXED); }

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

static struct model_entry *entry_of(const struct starpu_task *task) {
  int i;
  for (i = 0; task && task->cl && i < n_models; ++i)
    if (models[i].model == task->cl->model) return &models[i];
  return NULL;
}

/* The launch of a task and its history key (dims, global, local, args, n_args: 16 numbers). */
static uint64_t launch_of(struct model_entry *e, struct starpu_task *task, kgraph_launch *launch) {
  double v[16];
  int i;
  memset(launch, 0, sizeof *launch);
  launch->global[0] = launch->global[1] = launch->global[2] = 1.0;
  launch->local[0] = launch->local[1] = launch->local[2] = 1.0;
  e->launch(task, launch);
  v[0] = launch->dims;
  for (i = 0; i < 3; ++i) {
    v[1 + i] = launch->global[i];
    v[4 + i] = launch->local[i];
  }
  for (i = 0; i < 8; ++i) v[7 + i] = i < launch->n_args ? launch->args[i] : 0.0;
  v[15] = launch->n_args;
  return kgraph_adaptive_key(v, 16);
}

/* ------------------------------------------------------------ C-function model of CPU workers */
static int cpu_state = -1; /* -1: not read yet; 0: off; 1: on */

#if defined(KGRAPH_CPU_MODEL) && KGRAPH_CPU_MODEL
static int cpu_device;
static void cpu_init(void) {
  const char *on = getenv("KGRAPH_STARPU_CPU_MODEL"), *dev = getenv("KGRAPH_STARPU_CPU_C_DEVICE");
  int d = dev && *dev ? kgcpu_device_index(dev) : 0, state = !(on && (strcmp(on, "0") == 0 || strcmp(on, "off") == 0));
  if (d < 0) {
    fprintf(stderr, "kgraph starpu: KGRAPH_STARPU_CPU_C_DEVICE=%s is not a device of the CPU export; using %s\n", dev,
            kgcpu_device_ids[0]);
    d = 0;
  }
  cpu_device = d;
  __atomic_store_n(&cpu_state, state, __ATOMIC_RELEASE);
}

static double cpu_predict_index(int function, const double *args, int n_args, int device) {
  static const double one[3] = {1.0, 1.0, 1.0};
  double features[KGCPU_N_LAUNCH];
  kgcpu_prediction p;
  if (kgcpu_features(function, 1, one, one, args, n_args, device, features) == KGCPU_OK &&
      kgcpu_predict_index(function, features, device, &p) == KGCPU_OK)
    return p.time_us;
  return NAN;
}
#else
static void cpu_init(void) { __atomic_store_n(&cpu_state, 0, __ATOMIC_RELEASE); }
#endif

int kgraph_starpu_cpu_model_active(void) {
  if (__atomic_load_n(&cpu_state, __ATOMIC_ACQUIRE) < 0) cpu_init();
  return cpu_state == 1;
}

int kgraph_starpu_model_set_cpu_function(struct starpu_perfmodel *model, const char *function,
                                         kgraph_starpu_cpu_call_fn call) {
  int i;
#if defined(KGRAPH_CPU_MODEL) && KGRAPH_CPU_MODEL
  int f = kgcpu_kernel_index(function);
  if (f < 0 || !call) return -1;
  for (i = 0; i < n_models; ++i)
    if (models[i].model == model) {
      models[i].cpu_function = f;
      models[i].cpu_call = call;
      return 0;
    }
#else
  (void)model; (void)function; (void)call; (void)i;
#endif
  return -1;
}

double kgraph_starpu_cpu_predict(const char *function, const double *args, int n_args, int device) {
#if defined(KGRAPH_CPU_MODEL) && KGRAPH_CPU_MODEL
  int f = kgcpu_kernel_index(function);
  kgraph_starpu_cpu_model_active();
  if (f < 0) return NAN;
  return cpu_predict_index(f, args, n_args, device < 0 ? cpu_device : device);
#else
  (void)function; (void)args; (void)n_args; (void)device;
  return NAN;
#endif
}

/* The CPU arch of a model with a C function, while the C-function model is on: its prediction, else -1. */
static int uses_cpu_model(const struct model_entry *e, const struct starpu_perfmodel_arch *arch) {
  return e->cpu_function >= 0 && arch && arch->ndevices >= 1 && arch->devices[0].type == STARPU_CPU_WORKER &&
         kgraph_starpu_cpu_model_active();
}

/* kgraph's prediction (µs) and, if `sigma` and the export has an interval head, the prior sd of ln(time)
 * from its 80% interval (NAN otherwise: the adaptive model then uses its global sigma). On a CPU arch of a
 * model with a C function (and the C-function model on): the C-function head's prediction (no interval). */
static double prior_of(struct model_entry *e, const kgraph_launch *launch, uint64_t key, int device,
                       double *sigma, struct starpu_task *task, const struct starpu_perfmodel_arch *arch) {
  double features[KGRAPH_N_LAUNCH];
  kgraph_prediction p;
  if (sigma) *sigma = NAN;
#if defined(KGRAPH_CPU_MODEL) && KGRAPH_CPU_MODEL
  if (uses_cpu_model(e, arch)) {
    double args[9], cost;
    int n = e->cpu_call(task, args), slot;
    uint64_t ckey;
    if (n < 0 || n > 8) return NAN;
    args[n] = n;
    if (!kgraph_starpu_cache_active()) return cpu_predict_index(e->cpu_function, args, n, cpu_device);
    ckey = kgraph_adaptive_key(args, n + 1);
    slot = (int)(ckey & 7u);
    pthread_mutex_lock(&e->cpu_lock);
    if (e->cpu_cache[slot].used && e->cpu_cache[slot].key == ckey) {
      cost = e->cpu_cache[slot].cost;
      pthread_mutex_unlock(&e->cpu_lock);
      return cost;
    }
    pthread_mutex_unlock(&e->cpu_lock);
    cost = cpu_predict_index(e->cpu_function, args, n, cpu_device); /* the same answer every time: cached */
    pthread_mutex_lock(&e->cpu_lock);
    e->cpu_cache[slot].key = ckey;
    e->cpu_cache[slot].cost = cost;
    e->cpu_cache[slot].used = 1;
    pthread_mutex_unlock(&e->cpu_lock);
    return cost;
  }
#else
  (void)task; (void)arch;
#endif
  {
    double cost = NAN, s = NAN;
    int cached = kgraph_starpu_cache_active();
    if (cached && kgraph_static_cache_get(&e->static_cache, key, device, launch, &cost, &s)) {
      __atomic_add_fetch(&cache_hits, 1, __ATOMIC_RELAXED);
      if (sigma) *sigma = s;
      return cost;
    }
    if (kgraph_features(e->kernel, launch->dims, launch->global, launch->local, launch->args, launch->n_args, device,
                        features) == KGRAPH_OK &&
        kgraph_predict_index(e->kernel, features, device, &p) == KGRAPH_OK) {
#if defined(KGRAPH_HAS_INTERVAL) && KGRAPH_HAS_INTERVAL
      s = kgraph_adaptive_sigma_of_interval(p.time_lo_ns, p.time_hi_ns);
#endif
      cost = p.time_us;
    }
    if (cached) {
      __atomic_add_fetch(&cache_misses, 1, __ATOMIC_RELAXED);
      kgraph_static_cache_put(&e->static_cache, key, device, launch, cost, s); /* the same answer every time: cached */
    }
    if (sigma) *sigma = s;
    return cost;
  }
}

/* The history series of (codelet, arch): file <codelet>.<archtype>_<devid>.kgpm. */
static int series_of(struct model_entry *e, const struct starpu_perfmodel_arch *arch) {
  enum starpu_worker_archtype type = arch->devices[0].type;
  int devid = arch->devices[0].devid, i, n, s;
  char name[64];
  n = __atomic_load_n(&e->n_archs, __ATOMIC_ACQUIRE);
  for (i = 0; i < n; ++i)
    if (e->archs[i].type == type && e->archs[i].devid == devid) return e->archs[i].series;
  snprintf(name, sizeof name, "%s_%d", starpu_perfmodel_get_archtype_name(type), devid);
  s = kgraph_adaptive_series(e->model->symbol, name); /* the same id for the same names */
  pthread_mutex_lock(&archs_lock);
  n = e->n_archs;
  for (i = 0; i < n; ++i)
    if (e->archs[i].type == type && e->archs[i].devid == devid) break;
  if (s >= 0 && i == n && n < KGRAPH_STARPU_MAX_ARCHS) {
    e->archs[n].type = type;
    e->archs[n].devid = devid;
    e->archs[n].series = s;
    __atomic_store_n(&e->n_archs, n + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&archs_lock);
  return s;
}

double kgraph_starpu_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl) {
  unsigned long long t0 = now_ns();
  double cost = NAN;
  kgraph_launch launch;
  int device = device_of(arch), series;
  struct model_entry *e = entry_of(task);
  uint64_t key;
  int found = 0;
  (void)nimpl;
  if (e && (device >= 0 || uses_cpu_model(e, arch))) {
    key = launch_of(e, task, &launch);
    if (e->adaptive && !__atomic_load_n(&adaptive_off, __ATOMIC_RELAXED) && (series = series_of(e, arch)) >= 0) {
      if (!(found = kgraph_adaptive_lookup(series, key, &cost))) {
        double prior, sigma;
        prior = prior_of(e, &launch, key, device, &sigma, task, arch);
        cost = kgraph_adaptive_estimate_sigma(series, key, prior, sigma);
        if (isnan(cost) && !isnan(prior)) found = 2; /* a wide interval: calibrate (StarPU's NAN) */
      }
    } else {
      cost = prior_of(e, &launch, key, device, NULL, task, arch);
    }
  }
  __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
  if (found == 2)
    __atomic_add_fetch(&calibrations, 1, __ATOMIC_RELAXED);
  else if (isnan(cost))
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&cost_ns, now_ns() - t0, __ATOMIC_RELAXED);
  return cost;
}

int kgraph_starpu_observe(struct starpu_task *task) {
  struct starpu_profiling_task_info *info = task ? task->profiling_info : NULL;
  struct starpu_perfmodel_arch *arch;
  struct model_entry *e = entry_of(task);
  kgraph_launch launch;
  double measured, prior;
  int series, device;
  uint64_t key;
  if (!e || !e->adaptive || !info || info->workerid < 0) goto fail;
  measured = starpu_timing_timespec_delay_us(&info->start_time, &info->end_time);
  arch = starpu_worker_get_perf_archtype(info->workerid, task->sched_ctx);
  if (!arch || arch->ndevices < 1 || (series = series_of(e, arch)) < 0) goto fail;
  key = launch_of(e, task, &launch);
  if (!kgraph_adaptive_lookup(series, key, &prior)) { /* never asked (another scheduler): kgraph's prior first */
    double sigma = NAN;
    device = device_of(arch);
    prior = device >= 0 || uses_cpu_model(e, arch) ? prior_of(e, &launch, key, device, &sigma, task, arch) : NAN;
    kgraph_adaptive_estimate_sigma(series, key, prior, sigma);
  }
  if (kgraph_adaptive_observe(series, key, NAN, measured) != 0) goto fail;
  __atomic_add_fetch(&observations, 1, __ATOMIC_RELAXED);
  return 0;
fail:
  __atomic_add_fetch(&observe_failures, 1, __ATOMIC_RELAXED);
  return -1;
}

void kgraph_starpu_callback(void *arg) {
  (void)arg;
  kgraph_starpu_observe(starpu_task_get_current());
}

int kgraph_starpu_save(void) { return kgraph_adaptive_save(); }
unsigned long kgraph_starpu_observations(void) { return __atomic_load_n(&observations, __ATOMIC_RELAXED); }
unsigned long kgraph_starpu_observe_failures(void) { return __atomic_load_n(&observe_failures, __ATOMIC_RELAXED); }

unsigned long kgraph_starpu_calls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }
unsigned long kgraph_starpu_failures(void) { return __atomic_load_n(&failures, __ATOMIC_RELAXED); }
unsigned long kgraph_starpu_calibrations(void) { return __atomic_load_n(&calibrations, __ATOMIC_RELAXED); }
double kgraph_starpu_cost_ns(void) { return (double)__atomic_load_n(&cost_ns, __ATOMIC_RELAXED); }
