/* The static-prediction cache of one kgraph StarPU model (kgraph_starpu.h, "Prediction cache"): kgraph's
 * static prediction and prior sigma per (device, launch), so a scheduler asking again for a launch it has
 * seen costs a lookup, not a model evaluation. Open addressing, at most KGRAPH_STARPU_CACHE_PROBES slots from
 * the home slot; a launch finding them all taken by others is answered without being cached (bounded). */
#ifndef KGRAPH_STARPU_CACHE_H
#define KGRAPH_STARPU_CACHE_H
#include "kgraph_starpu.h" /* kgraph_launch */
#include <pthread.h>
#include <stdint.h>

#define KGRAPH_STARPU_CACHE_SLOTS 256
#define KGRAPH_STARPU_CACHE_PROBES 8

struct kgraph_static_slot {
  uint64_t key;         /* the launch's hash (the adaptive model's) */
  int device, used;
  kgraph_launch launch; /* compared in full on a hit: a hash collision is a miss, never another launch's answer */
  double cost, sigma;
};

struct kgraph_static_cache {
  pthread_mutex_t lock;             /* guards slots */
  struct kgraph_static_slot *slots; /* allocated at the first store */
};

void kgraph_static_cache_init(struct kgraph_static_cache *c);
/* 1 and the cached cost and sigma of (device, launch), else 0. */
int kgraph_static_cache_get(struct kgraph_static_cache *c, uint64_t key, int device, const kgraph_launch *launch,
                            double *cost, double *sigma);
void kgraph_static_cache_put(struct kgraph_static_cache *c, uint64_t key, int device, const kgraph_launch *launch,
                             double cost, double sigma);
#endif
