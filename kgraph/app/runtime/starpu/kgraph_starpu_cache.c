/* The static-prediction cache of a kgraph StarPU model (see kgraph_starpu_cache.h). */
#include "kgraph_starpu_cache.h"
#include <stdlib.h>
#include <string.h>

void kgraph_static_cache_init(struct kgraph_static_cache *c) {
  pthread_mutex_init(&c->lock, NULL);
  c->slots = NULL;
}

static int same_launch(const kgraph_launch *a, const kgraph_launch *b) {
  return a->dims == b->dims && a->n_args == b->n_args && memcmp(a->global, b->global, sizeof a->global) == 0 &&
         memcmp(a->local, b->local, sizeof a->local) == 0 && memcmp(a->args, b->args, sizeof a->args) == 0;
}

static size_t cache_home(uint64_t key, int device) {
  uint64_t h = (key ^ ((uint64_t)(unsigned)device * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  return (size_t)(h >> 40) & (KGRAPH_STARPU_CACHE_SLOTS - 1);
}

int kgraph_static_cache_get(struct kgraph_static_cache *c, uint64_t key, int device, const kgraph_launch *launch,
                            double *cost, double *sigma) {
  size_t i = cache_home(key, device), k;
  int hit = 0;
  pthread_mutex_lock(&c->lock);
  for (k = 0; c->slots && k < KGRAPH_STARPU_CACHE_PROBES; ++k, i = (i + 1) & (KGRAPH_STARPU_CACHE_SLOTS - 1)) {
    const struct kgraph_static_slot *s = &c->slots[i];
    if (!s->used) break; /* slots are never freed: the launch is not further on */
    if (s->key == key && s->device == device && same_launch(&s->launch, launch)) {
      *cost = s->cost;
      *sigma = s->sigma;
      hit = 1;
      break;
    }
  }
  pthread_mutex_unlock(&c->lock);
  return hit;
}

void kgraph_static_cache_put(struct kgraph_static_cache *c, uint64_t key, int device, const kgraph_launch *launch,
                             double cost, double sigma) {
  size_t i = cache_home(key, device), k;
  pthread_mutex_lock(&c->lock);
  if (!c->slots) c->slots = calloc(KGRAPH_STARPU_CACHE_SLOTS, sizeof *c->slots);
  for (k = 0; c->slots && k < KGRAPH_STARPU_CACHE_PROBES; ++k, i = (i + 1) & (KGRAPH_STARPU_CACHE_SLOTS - 1)) {
    struct kgraph_static_slot *s = &c->slots[i];
    if (s->used && s->key == key && s->device == device && same_launch(&s->launch, launch)) break; /* another thread */
    if (!s->used) {
      s->key = key;
      s->device = device;
      s->launch = *launch;
      s->cost = cost;
      s->sigma = sigma;
      s->used = 1;
      break;
    }
  } /* all probes taken by other launches: not cached (the table is bounded) */
  pthread_mutex_unlock(&c->lock);
}
