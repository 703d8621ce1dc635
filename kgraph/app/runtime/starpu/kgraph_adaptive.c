/* kgraph adaptive perfmodel (see kgraph_adaptive.h). */
#include "kgraph_adaptive_int.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
struct series kga_series_tab[MAX_SERIES];
static struct arch arch_tab[MAX_ARCHS];
static int n_series, n_archs;
struct entry *kga_table;
size_t kga_capacity;
static size_t used;
static int inited, enabled = 1, atexit_done;
double kga_prior_sigma = KGRAPH_ADAPTIVE_PRIOR_SIGMA, kga_obs_sigma = KGRAPH_ADAPTIVE_OBS_SIGMA;
static double calibrate_width = KGRAPH_ADAPTIVE_CALIBRATE_WIDTH; /* KGRAPH_PERFMODEL_CALIBRATE_WIDTH: 0 = off */
static double calibrate_t2;    /* (ln(calibrate_width) / (2 z90))^2: the sd^2 beyond which a key calibrates */
static long calibrate_runs = 1; /* KGRAPH_PERFMODEL_CALIBRATE_RUNS */
static long warmup;             /* KGRAPH_PERFMODEL_WARMUP */
char kga_dir[4096];
#define series_tab kga_series_tab
#define table kga_table
#define capacity kga_capacity
#define prior_sigma kga_prior_sigma
#define obs_sigma kga_obs_sigma
#define dir kga_dir

static double env_double(const char *name, double fallback) {
  const char *v = getenv(name);
  char *end;
  double x;
  if (!v || !*v) return fallback;
  x = strtod(v, &end);
  if (*end || !isfinite(x) || x <= 0) {
    fprintf(stderr, "kgraph perfmodel: warning: %s=%s is not a positive number; using %g\n", name, v, fallback);
    return fallback;
  }
  return x;
}

static void init_locked(void) {
  const char *v;
  if (inited) return;
  inited = 1;
  v = getenv("KGRAPH_PERFMODEL_ADAPTIVE");
  enabled = !(v && strcmp(v, "0") == 0);
  prior_sigma = env_double("KGRAPH_PERFMODEL_PRIOR_SIGMA", KGRAPH_ADAPTIVE_PRIOR_SIGMA);
  obs_sigma = env_double("KGRAPH_PERFMODEL_OBS_SIGMA", KGRAPH_ADAPTIVE_OBS_SIGMA);
  v = getenv("KGRAPH_PERFMODEL_CALIBRATE_WIDTH");
  calibrate_width = v && strcmp(v, "0") == 0 ? 0.0 : env_double("KGRAPH_PERFMODEL_CALIBRATE_WIDTH", KGRAPH_ADAPTIVE_CALIBRATE_WIDTH);
  v = getenv("KGRAPH_PERFMODEL_WARMUP");
  warmup = v && strcmp(v, "0") != 0 ? (long)env_double("KGRAPH_PERFMODEL_WARMUP", 0.0) : 0;
  if (calibrate_width != 0.0 && !(calibrate_width > 1.0)) {
    fprintf(stderr, "kgraph perfmodel: warning: KGRAPH_PERFMODEL_CALIBRATE_WIDTH=%g is not a ratio > 1; calibration off\n",
            calibrate_width);
    calibrate_width = 0.0;
  }
  if (calibrate_width > 1.0) {
    double t = log(calibrate_width) / (2.0 * Z90);
    calibrate_t2 = t * t;
  }
  calibrate_runs = (long)env_double("KGRAPH_PERFMODEL_CALIBRATE_RUNS", 1.0);
  if (calibrate_runs < 1) calibrate_runs = 1;
  v = getenv("KGRAPH_PERFMODEL_DIR");
  if (v && *v)
    snprintf(dir, sizeof dir, "%s", v);
  else
    snprintf(dir, sizeof dir, "%s/.kgraph/perfmodel", getenv("HOME") ? getenv("HOME") : ".");
}

int kgraph_adaptive_enabled(void) {
  int e;
  pthread_mutex_lock(&lock);
  init_locked();
  e = enabled;
  pthread_mutex_unlock(&lock);
  return e;
}

const char *kgraph_adaptive_dir(void) {
  pthread_mutex_lock(&lock);
  init_locked();
  pthread_mutex_unlock(&lock);
  return dir;
}

uint64_t kgraph_adaptive_key(const double *values, int n) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)n, w;
  int i;
  for (i = 0; i < n; ++i) { /* one multiply-xorshift round per 64-bit word */
    memcpy(&w, &values[i], sizeof w);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

static size_t slot_of(int series, uint64_t key) {
  uint64_t h = key ^ ((uint64_t)series * 0x9E3779B97F4A7C15ull);
  size_t i = (size_t)(h ^ (h >> 29)) & (capacity - 1);
  while (table[i].series >= 0 && !(table[i].series == series && table[i].key == key)) i = (i + 1) & (capacity - 1);
  return i;
}

static struct entry *find(int series, uint64_t key) {
  struct entry *e;
  if (!capacity) return NULL;
  e = &table[slot_of(series, key)];
  return e->series >= 0 ? e : NULL;
}

static int grow(void) {
  size_t old = capacity, i;
  struct entry *old_tab = table, *t;
  size_t cap = capacity ? capacity * 2 : 1024;
  t = malloc(cap * sizeof *t);
  if (!t) return -1;
  for (i = 0; i < cap; ++i) t[i].series = -1;
  table = t;
  capacity = cap;
  for (i = 0; i < old; ++i)
    if (old_tab[i].series >= 0) table[slot_of(old_tab[i].series, old_tab[i].key)] = old_tab[i];
  free(old_tab);
  return 0;
}

struct entry *kga_insert(int series, uint64_t key) {
  struct entry *e;
  if ((used + 1) * 2 > capacity && grow() != 0) return NULL;
  e = &table[slot_of(series, key)];
  if (e->series < 0) {
    memset(e, 0, sizeof *e);
    e->series = series;
    e->key = key;
    e->prior_log = e->prior_us = NAN;
    e->post_us = NAN;
    e->sigma = NAN;
    e->sgen = series_tab[series].gen - 1; /* stale: computed at the first query */
    ++used;
  }
  return e;
}

double kgraph_adaptive_sigma_of_interval(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo) || !isfinite(hi)) return NAN;
  return (log(hi) - log(lo)) / (2.0 * Z90);
}

static double sigma_of(const struct entry *e) { return isnan(e->sigma) ? prior_sigma : e->sigma; }

void kga_contrib(struct entry *e, int sign) {
  struct series *s = &series_tab[e->series];
  ++s->gen; /* its entries' cached posteriors are stale (this one's own data change too) */
  if (e->n < 1) return;
  s->sum_m2 += sign * e->m2;
  s->sum_dof += sign * (double)(e->n - 1);
  if (!isnan(e->prior_log)) {
    double d = e->mean_log - e->prior_log, s0 = sigma_of(e), x = d * d - s0 * s0;
    s->k += sign;
    s->sum_d += sign * d;
    s->sum_d2 += sign * d * d;
    arch_tab[s->arch_id].k += sign;
    arch_tab[s->arch_id].sum_excess += sign * (x > 0 ? x : 0.0);
    ++arch_tab[s->arch_id].gen;
  }
}

/* s^2 of a series: its pooled within-key variance of ln time, shrunk to obs_sigma^2 with NU0 pseudo-runs */
static double obs_var(const struct series *s) {
  return (KGRAPH_ADAPTIVE_NU0 * obs_sigma * obs_sigma + s->sum_m2) / (KGRAPH_ADAPTIVE_NU0 + s->sum_dof);
}

/* The prior of an entry with a prior_log: mean *mu, variance *v and its evidence-based part *vev (v without
 * the global sigma). Observed: v = max(s0^2, d^2 - s^2/n) (type-II ML). Unobserved: shifted by the mean miss
 * of the series' observed keys and widened by their spread; else widened by the arch's excess miss. */
static void prior_of(const struct entry *e, double s2, double *mu, double *v, double *vev) {
  const struct series *s = &series_tab[e->series];
  double s0sq = sigma_of(e) * sigma_of(e), own = isnan(e->sigma) ? 0.0 : s0sq, extra = 0.0;
  *mu = e->prior_log;
  if (e->n > 0) {
    double d = e->mean_log - e->prior_log, x = d * d - s2 / (double)e->n;
    *v = *vev = x > s0sq ? x : s0sq;
    return;
  }
  if (s->k > 0) {
    double dbar = s->sum_d / (double)s->k;
    extra = s->sum_d2 / (double)s->k - dbar * dbar;
    if (extra < 0) extra = 0.0;
    *mu += dbar;
  } else if (arch_tab[s->arch_id].k > 0) {
    extra = arch_tab[s->arch_id].sum_excess / (double)arch_tab[s->arch_id].k;
  }
  *v = s0sq + extra;
  *vev = own + extra;
}

/* posterior mean and sd of ln(us) */
static double post_log_of(const struct entry *e, double *post_sigma) {
  double s2 = obs_var(&series_tab[e->series]), mu, v, vev, prec;
  if (isnan(e->prior_log)) {
    if (post_sigma) *post_sigma = e->n ? sqrt(s2 / (double)e->n) : NAN;
    return e->n ? e->mean_log : NAN;
  }
  prior_of(e, s2, &mu, &v, &vev);
  prec = 1.0 / v + (double)e->n / s2;
  if (post_sigma) *post_sigma = 1.0 / sqrt(prec);
  return (mu / v + (double)e->n * e->mean_log / s2) / prec;
}

/* Calibrating: the option is on, the entry has fewer than calibrate_runs observations and its evidence-based
 * prior sd is wider than the threshold (an 80% interval hi/lo > width: sd > ln(width) / (2 z90)). */
static int calibrating(const struct entry *e) {
  double mu, v, vev;
  if (!(calibrate_width > 1.0) || e->n >= calibrate_runs || isnan(e->prior_log)) return 0;
  prior_of(e, obs_var(&series_tab[e->series]), &mu, &v, &vev);
  return vev > calibrate_t2;
}

/* The cached posterior (post_us, calib) of an entry is a function of its own data, its series' aggregates
 * and, for an unobserved key of a series without observed keys, its arch's: recomputed only when one of
 * those changed since (generations), so a query after an observation elsewhere costs nothing extra. */
void kga_refresh(struct entry *e) {
  const struct series *s = &series_tab[e->series];
  double m = post_log_of(e, NULL);
  e->post_us = e->n == 0 && m == e->prior_log ? e->prior_us : exp(m);
  e->calib = calibrating(e);
  e->sgen = s->gen;
  e->agen = arch_tab[s->arch_id].gen;
}

static int stale(const struct entry *e) {
  const struct series *s = &series_tab[e->series];
  return e->sgen != s->gen || (e->n == 0 && s->k == 0 && e->agen != arch_tab[s->arch_id].gen);
}
#define refresh kga_refresh

int kgraph_adaptive_save(void) {
  int i, failed = 0;
  pthread_mutex_lock(&lock);
  init_locked();
  for (i = 0; i < n_series; ++i)
    if (series_tab[i].dirty && kga_save_series_locked(i) != 0) ++failed;
  pthread_mutex_unlock(&lock);
  return failed;
}

static void save_at_exit(void) { kgraph_adaptive_save(); }

void kgraph_adaptive_preload(const char *codelet) {
  pthread_mutex_lock(&lock);
  init_locked();
  if (enabled && codelet) {
    if (!capacity) grow(); /* the table's first allocation, not in the first query either */
    kga_preload_locked(codelet);
  }
  pthread_mutex_unlock(&lock);
}

int kgraph_adaptive_series(const char *codelet, const char *arch) {
  int i, id = -1;
  pthread_mutex_lock(&lock);
  init_locked();
  for (i = 0; i < n_series; ++i)
    if (strncmp(series_tab[i].codelet, codelet, NAME_LEN - 1) == 0 && strncmp(series_tab[i].arch, arch, NAME_LEN - 1) == 0) {
      id = i;
      break;
    }
  if (id < 0 && n_series < MAX_SERIES) {
    id = n_series++;
    snprintf(series_tab[id].codelet, NAME_LEN, "%s", codelet);
    snprintf(series_tab[id].arch, NAME_LEN, "%s", arch);
    series_tab[id].dirty = 0;
    for (i = 0; i < n_archs && strncmp(arch_tab[i].name, arch, NAME_LEN - 1) != 0; ++i) {}
    if (i == n_archs && n_archs < MAX_ARCHS) snprintf(arch_tab[n_archs++].name, NAME_LEN, "%s", arch);
    series_tab[id].arch_id = i < MAX_ARCHS ? i : MAX_ARCHS - 1; /* (more archs than that: the last is shared) */
    if (enabled) {
      kga_load_locked(id);
      if (!atexit_done) atexit_done = atexit(save_at_exit) == 0;
    }
  }
  pthread_mutex_unlock(&lock);
  return id;
}

int kgraph_adaptive_lookup(int series, uint64_t key, double *us) {
  struct entry *e;
  int found = 0;
  pthread_mutex_lock(&lock);
  e = find(series, key);
  if (e && stale(e)) refresh(e); /* an aggregate it depends on changed since: recompute (a few flops) */
  if (e && e->calib) {
    *us = NAN;
    found = 2;
  } else if (e && !isnan(e->post_us)) {
    *us = e->post_us;
    found = 1;
  }
  pthread_mutex_unlock(&lock);
  return found;
}

double kgraph_adaptive_estimate(int series, uint64_t key, double prior_us) {
  return kgraph_adaptive_estimate_sigma(series, key, prior_us, NAN);
}

double kgraph_adaptive_estimate_sigma(int series, uint64_t key, double prior_us, double sigma) {
  struct entry *e;
  double us = prior_us;
  if (!(prior_us > 0) || !isfinite(prior_us)) return prior_us;
  pthread_mutex_lock(&lock);
  init_locked();
  e = kga_insert(series, key);
  if (e) {
    if (isnan(e->prior_log)) {
      kga_contrib(e, -1); /* observed before its prior was known: it joins the misses now */
      e->prior_log = log(prior_us);
      e->prior_us = prior_us;
      if (isnan(e->sigma) && sigma > 0 && isfinite(sigma)) e->sigma = sigma; /* else: the global sigma */
      kga_contrib(e, +1);
    }
    if (stale(e)) refresh(e);
    us = e->calib ? NAN : e->post_us;
  }
  pthread_mutex_unlock(&lock);
  return us;
}

int kgraph_adaptive_observe(int series, uint64_t key, double prior_us, double measured_us) {
  struct entry *e;
  double y, delta;
  if (!(measured_us > 0) || !isfinite(measured_us) || series < 0) return -1;
  y = log(measured_us);
  pthread_mutex_lock(&lock);
  init_locked();
  if (++series_tab[series].seen <= warmup) { /* a warm-up run of the codelet on this arch: not folded in */
    pthread_mutex_unlock(&lock);
    return 0;
  }
  e = kga_insert(series, key);
  if (!e) {
    pthread_mutex_unlock(&lock);
    return -1;
  }
  kga_contrib(e, -1);
  if (isnan(e->prior_log) && prior_us > 0 && isfinite(prior_us)) {
    e->prior_log = log(prior_us);
    e->prior_us = prior_us;
  }
  e->n += 1; /* Welford: running mean and sum of squared deviations of ln(time) */
  delta = y - e->mean_log;
  e->mean_log += delta / (double)e->n;
  e->m2 += delta * (y - e->mean_log);
  kga_contrib(e, +1);
  refresh(e);
  series_tab[series].dirty = 1;
  pthread_mutex_unlock(&lock);
  return 0;
}

int kgraph_adaptive_stats(int series, uint64_t key, long *n, double *mean_log, double *prior_log, double *post_log,
                          double *post_sigma) {
  struct entry *e;
  int rc = -1;
  pthread_mutex_lock(&lock);
  init_locked();
  e = find(series, key);
  if (e) {
    if (n) *n = e->n;
    if (mean_log) *mean_log = e->n ? e->mean_log : NAN;
    if (prior_log) *prior_log = e->prior_log;
    if (post_log || post_sigma) {
      double ps, pl = post_log_of(e, &ps);
      if (post_log) *post_log = pl;
      if (post_sigma) *post_sigma = ps;
    }
    rc = 0;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

double kgraph_adaptive_prior_sigma(int series, uint64_t key) {
  struct entry *e;
  double s = NAN;
  pthread_mutex_lock(&lock);
  init_locked();
  e = find(series, key);
  if (e) s = sigma_of(e);
  pthread_mutex_unlock(&lock);
  return s;
}
