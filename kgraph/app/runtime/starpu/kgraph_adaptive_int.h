/* Internal to the adaptive perfmodel (kgraph_adaptive.c, kgraph_adaptive_io.c): its tables and state. */
#ifndef KGRAPH_ADAPTIVE_INT_H
#define KGRAPH_ADAPTIVE_INT_H
#include "kgraph_adaptive.h"
#include <stddef.h>

#define MAX_SERIES 256
#define MAX_ARCHS 64
#define NAME_LEN 128
#define FILE_MAGIC "kgraph-perfmodel 2"
#define FILE_MAGIC_V1 "kgraph-perfmodel 1" /* read too: lines without the prior_sigma column */
#define Z90 1.2815515655446004 /* the 0.9 quantile of N(0, 1) */

struct series {
  char codelet[NAME_LEN], arch[NAME_LEN];
  int dirty, arch_id;
  long seen;                 /* observations received in this process (warm-up) */
  long k;                    /* observed keys with a prior: their misses d = mean_log - prior_log */
  double sum_d, sum_d2;      /* sum of d and d^2 over them */
  double sum_m2, sum_dof;    /* pooled Welford M2 and sum of (n - 1) over every observed key */
  unsigned long gen;         /* bumped by every change of the series' aggregates or of one of its entries */
};
struct arch {
  char name[NAME_LEN];
  long k;                    /* observed keys with a prior on this arch (every codelet) */
  double sum_excess;         /* sum of max(0, d^2 - s0^2): kgraph's miss beyond its own interval */
  unsigned long gen;         /* bumped by every change of k / sum_excess */
};
struct entry {
  uint64_t key;
  int series;  /* -1: empty slot */
  long n;
  double mean_log, m2, prior_log, prior_us, post_us;
  double sigma; /* the prior sd of ln(time) of this entry: from kgraph's interval, NAN = the global prior_sigma */
  int calib;         /* calibrating (NAN answer) as of the refresh */
  unsigned long sgen, agen; /* the series' and arch's generations post_us and calib were computed at */
};

extern struct series kga_series_tab[MAX_SERIES];
extern struct entry *kga_table;
extern size_t kga_capacity;
extern char kga_dir[4096];
extern double kga_prior_sigma, kga_obs_sigma;

/* (locked) */
struct entry *kga_insert(int series, uint64_t key);
void kga_contrib(struct entry *e, int sign); /* add (+1) or remove (-1) an entry from its aggregates */
void kga_refresh(struct entry *e);
void kga_load_locked(int id);
void kga_preload_locked(const char *codelet);
int kga_save_series_locked(int id);
#endif
