/* The static-prediction cache of kgraph_starpu_cost (kgraph_starpu.h, "Prediction cache") answers exactly
 * what the uncached path answers: for KERNEL and many distinct launches (more than the cache holds, so some
 * are never cached) on two archs mapped to DEVICE_A and DEVICE_B, the cost with the cache on (first call,
 * repeated calls, and from 4 threads at once) equals bit for bit the cost with it off. No StarPU runtime
 * (starpu_init is not called: the cost function of a static model only reads the task and the arch).
 *   test_cost_cache KERNEL DEVICE_A DEVICE_B  -> "ok launches N hits H misses M", exit 0; else exit 1. */
#include "kgraph_starpu.h"
#include "kgraph_model.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_LAUNCHES 600 /* > 256 slots of a model's cache: the overflow path is exercised too */
#define N_THREADS 4

struct arg { double global0, global1, n, alpha; };
static struct arg args[N_LAUNCHES];
static struct starpu_codelet cl;
static struct starpu_perfmodel model;
static struct starpu_perfmodel_device dev[2];
static struct starpu_perfmodel_arch arch[2];
static double want[N_LAUNCHES][2];

static void launch_fn(struct starpu_task *task, kgraph_launch *launch) {
  const struct arg *a = task->cl_arg;
  launch->dims = 2;
  launch->global[0] = a->global0;
  launch->global[1] = a->global1;
  launch->local[0] = launch->local[1] = 1.0;
  launch->args[0] = a->n;
  launch->args[1] = a->alpha;
  launch->n_args = 2;
}

static double cost(int i, int k) {
  struct starpu_task task;
  memset(&task, 0, sizeof task);
  task.cl = &cl;
  task.cl_arg = &args[i];
  return kgraph_starpu_cost(&task, &arch[k], 0);
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int bad;
static void *worker(void *p) {
  int t = (int)(size_t)p, r, i, k;
  for (r = 0; r < 3; ++r)
    for (i = 0; i < N_LAUNCHES; ++i)
      for (k = 0; k < 2; ++k) {
        int j = (i * 7 + t * 131 + r * 17) % N_LAUNCHES; /* threads walk the launches in different orders */
        if (!same(cost(j, k), want[j][k])) __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
      }
  return NULL;
}

int main(int argc, char **argv) {
  int i, k, r, da, db, finite = 0;
  pthread_t th[N_THREADS];
  if (argc != 4) { fprintf(stderr, "usage: %s KERNEL DEVICE_A DEVICE_B\n", argv[0]); return 2; }
  da = kgraph_device_index(argv[2]);
  db = kgraph_device_index(argv[3]);
  if (kgraph_starpu_model_init(&model, argv[1], launch_fn) != 0 || da < 0 || db < 0 ||
      kgraph_starpu_map_arch(STARPU_CPU_WORKER, -1, da) != 0 || kgraph_starpu_map_arch(STARPU_OPENCL_WORKER, -1, db) != 0) {
    fprintf(stderr, "setup failed (kernel or device not in the export)\n");
    return 2;
  }
  cl.model = &model;
  dev[0].type = STARPU_CPU_WORKER;
  dev[1].type = STARPU_OPENCL_WORKER;
  for (k = 0; k < 2; ++k) {
    arch[k].ndevices = 1;
    arch[k].devices = &dev[k];
  }
  for (i = 0; i < N_LAUNCHES; ++i) { /* distinct launches; a few differ only in a later argument */
    args[i].n = 8 + (i % 75) * 8;
    args[i].global0 = args[i].n;
    args[i].global1 = i % 5 == 0 ? 1.0 : args[i].n;
    args[i].alpha = (double)(i / 75) - 3.0;
  }
  kgraph_starpu_set_cache(0);
  for (i = 0; i < N_LAUNCHES; ++i)
    for (k = 0; k < 2; ++k) {
      want[i][k] = cost(i, k);
      finite += isfinite(want[i][k]) != 0;
    }
  if (kgraph_starpu_cache_hits() + kgraph_starpu_cache_misses() != 0) { fprintf(stderr, "cache used while off\n"); return 1; }
  if (finite == 0) { fprintf(stderr, "no finite prediction: nothing compared\n"); return 1; }
  kgraph_starpu_set_cache(1);
  for (r = 0; r < 3; ++r) /* first call (miss), then hits */
    for (i = 0; i < N_LAUNCHES; ++i)
      for (k = 0; k < 2; ++k)
        if (!same(cost(i, k), want[i][k])) {
          fprintf(stderr, "round %d launch %d arch %d: cached %.17g, uncached %.17g\n", r, i, k, cost(i, k), want[i][k]);
          return 1;
        }
  for (i = 0; i < N_THREADS; ++i) pthread_create(&th[i], NULL, worker, (void *)(size_t)i);
  for (i = 0; i < N_THREADS; ++i) pthread_join(th[i], NULL);
  if (bad) { fprintf(stderr, "a threaded cached answer differs\n"); return 1; }
  if (kgraph_starpu_cache_hits() == 0) { fprintf(stderr, "the cache never answered\n"); return 1; }
  printf("ok launches %d finite %d hits %lu misses %lu\n", N_LAUNCHES, finite, kgraph_starpu_cache_hits(),
         kgraph_starpu_cache_misses());
  return 0;
}
