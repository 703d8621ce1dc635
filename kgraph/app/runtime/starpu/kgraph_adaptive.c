/* kgraph adaptive perfmodel (see kgraph_adaptive.h). */
#include "kgraph_adaptive.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SERIES 256
#define NAME_LEN 128
#define FILE_MAGIC "kgraph-perfmodel 2"
#define FILE_MAGIC_V1 "kgraph-perfmodel 1" /* read too: lines without the prior_sigma column */
#define Z90 1.2815515655446004 /* the 0.9 quantile of N(0, 1) */

struct series {
  char codelet[NAME_LEN], arch[NAME_LEN];
  int dirty;
};
struct entry {
  uint64_t key;
  int series;  /* -1: empty slot */
  long n;
  double mean_log, m2, prior_log, prior_us, post_us;
  double sigma; /* the prior sd of ln(time) of this entry: from kgraph's interval, NAN = the global prior_sigma */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct series series_tab[MAX_SERIES];
static int n_series;
static struct entry *table;
static size_t capacity, used;
static int inited, enabled = 1, atexit_done;
static double prior_sigma = KGRAPH_ADAPTIVE_PRIOR_SIGMA, obs_sigma = KGRAPH_ADAPTIVE_OBS_SIGMA;
static double calibrate_width;  /* KGRAPH_PERFMODEL_CALIBRATE_WIDTH: 0 = off */
static long calibrate_runs = 1; /* KGRAPH_PERFMODEL_CALIBRATE_RUNS */
static char dir[4096];

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
  calibrate_width = env_double("KGRAPH_PERFMODEL_CALIBRATE_WIDTH", 0.0);
  if (calibrate_width != 0.0 && !(calibrate_width > 1.0)) {
    fprintf(stderr, "kgraph perfmodel: warning: KGRAPH_PERFMODEL_CALIBRATE_WIDTH=%g is not a ratio > 1; calibration off\n",
            calibrate_width);
    calibrate_width = 0.0;
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

static struct entry *insert(int series, uint64_t key) {
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
    ++used;
  }
  return e;
}

double kgraph_adaptive_sigma_of_interval(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo) || !isfinite(hi)) return NAN;
  return (log(hi) - log(lo)) / (2.0 * Z90);
}

static double sigma_of(const struct entry *e) { return isnan(e->sigma) ? prior_sigma : e->sigma; }

/* w0 = s^2 / s0^2 of this entry: how many observations its prior is worth */
static double w0_of(const struct entry *e) {
  double s0 = sigma_of(e);
  return (obs_sigma * obs_sigma) / (s0 * s0);
}

static double post_log_of(const struct entry *e) {
  double w0 = w0_of(e);
  if (isnan(e->prior_log)) return e->n ? e->mean_log : NAN;
  return (w0 * e->prior_log + (double)e->n * e->mean_log) / (w0 + (double)e->n);
}

/* Calibrating: the option is on, the entry's own interval is wider than the threshold (hi/lo > width,
 * i.e. sigma > ln(width) / (2 z90)) and it has fewer than calibrate_runs observations. */
static int calibrating(const struct entry *e) {
  return calibrate_width > 1.0 && !isnan(e->sigma) && e->sigma > log(calibrate_width) / (2.0 * Z90) &&
         e->n < calibrate_runs;
}

static void refresh(struct entry *e) { e->post_us = e->n == 0 ? e->prior_us : exp(post_log_of(e)); }

static void file_name(const struct series *s, char *out, size_t len) {
  char c[NAME_LEN], a[NAME_LEN];
  size_t i;
  for (i = 0; i < NAME_LEN; ++i) {
    char x = s->codelet[i], y = s->arch[i];
    c[i] = (x && !((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '_' || x == '-')) ? '_' : x;
    a[i] = (y && !((y >= 'a' && y <= 'z') || (y >= 'A' && y <= 'Z') || (y >= '0' && y <= '9') || y == '_' || y == '-')) ? '_' : y;
  }
  snprintf(out, len, "%s/%s.%s.kgpm", dir, c, a);
}

/* Read a series' file: every line must parse, else the whole file is ignored (warning). */
static void load_locked(int id) {
  char path[4400], line[512], magic[64];
  struct series *s = &series_tab[id];
  FILE *f;
  long lineno = 0;
  struct {
    uint64_t key;
    long n;
    double mean_log, m2, prior_log, sigma;
  } *rows = NULL, *grown;
  size_t n_rows = 0, cap_rows = 0, i;
  int version = 0;
  file_name(s, path, sizeof path);
  f = fopen(path, "r");
  if (!f) {
    if (errno != ENOENT)
      fprintf(stderr, "kgraph perfmodel: warning: cannot read %s (%s); starting from kgraph's prior\n", path,
              strerror(errno));
    return;
  }
  while (fgets(line, sizeof line, f)) {
    unsigned long long key;
    long n;
    double mean_log, m2, prior_log, post_us, sigma = NAN;
    char extra[2];
    int fields;
    ++lineno;
    if (!strchr(line, '\n') && !feof(f)) goto bad;
    if (lineno == 1) {
      memcpy(magic, line, sizeof magic - 1);
      magic[sizeof magic - 1] = 0;
      if (strncmp(magic, FILE_MAGIC " ", sizeof FILE_MAGIC) == 0)
        version = 2;
      else if (strncmp(magic, FILE_MAGIC_V1 " ", sizeof FILE_MAGIC_V1) == 0)
        version = 1;
      else
        goto bad;
      continue;
    }
    if (line[0] == '#') continue;
    /* version 1: 6 fields (the global prior sigma); version 2: 7 (a truncated line does not pass for a v1 one) */
    fields = sscanf(line, "%16llx %ld %lf %lf %lf %lf %lf %1s", &key, &n, &mean_log, &m2, &prior_log, &post_us, &sigma, extra);
    if (fields != (version == 1 ? 6 : 7) || n < 1 || !isfinite(mean_log) || !isfinite(m2) || m2 < 0 ||
        !(isfinite(prior_log) || isnan(prior_log)) || !(isnan(sigma) || (isfinite(sigma) && sigma > 0)))
      goto bad;
    if (n_rows == cap_rows) {
      cap_rows = cap_rows ? cap_rows * 2 : 16;
      grown = realloc(rows, cap_rows * sizeof *rows);
      if (!grown) goto bad;
      rows = grown;
    }
    rows[n_rows].key = key;
    rows[n_rows].n = n;
    rows[n_rows].mean_log = mean_log;
    rows[n_rows].m2 = m2;
    rows[n_rows].prior_log = prior_log;
    rows[n_rows].sigma = sigma;
    ++n_rows;
  }
  if (lineno == 0 || ferror(f)) goto bad;
  fclose(f);
  for (i = 0; i < n_rows; ++i) {
    struct entry *e = insert(id, rows[i].key);
    if (!e) break;
    e->n = rows[i].n;
    e->mean_log = rows[i].mean_log;
    e->m2 = rows[i].m2;
    e->prior_log = rows[i].prior_log;
    e->prior_us = exp(rows[i].prior_log);
    e->sigma = rows[i].sigma;
    refresh(e);
  }
  free(rows);
  return;
bad:
  fclose(f);
  free(rows);
  fprintf(stderr, "kgraph perfmodel: warning: %s is corrupted (line %ld); ignored, starting from kgraph's prior\n",
          path, lineno);
  s->dirty = 1; /* replace it at the next save */
}

static int mkdirs(const char *path) {
  char tmp[4096];
  size_t i;
  snprintf(tmp, sizeof tmp, "%s", path);
  for (i = 1; tmp[i]; ++i)
    if (tmp[i] == '/') {
      tmp[i] = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      tmp[i] = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int save_series_locked(int id) {
  char path[4400], tmp[4500];
  struct series *s = &series_tab[id];
  FILE *f;
  size_t i;
  int ok;
  file_name(s, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if (mkdirs(dir) != 0 || !(f = fopen(tmp, "w"))) {
    fprintf(stderr, "kgraph perfmodel: warning: cannot write %s (%s)\n", path, strerror(errno));
    return -1;
  }
  fprintf(f, FILE_MAGIC " %s %s\n", s->codelet, s->arch);
  fprintf(f, "# key n mean_ln_us m2_ln prior_ln_us posterior_us prior_sigma_ln (nan: the global prior_sigma %g; obs_sigma %g)\n",
          prior_sigma, obs_sigma);
  for (i = 0; i < capacity; ++i) {
    const struct entry *e = &table[i];
    if (e->series == id && e->n > 0)
      fprintf(f, "%016llx %ld %.17g %.17g %.17g %.17g %.17g\n", (unsigned long long)e->key, e->n, e->mean_log, e->m2,
              e->prior_log, e->post_us, e->sigma);
  }
  ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "kgraph perfmodel: warning: cannot write %s (%s)\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  s->dirty = 0;
  return 0;
}

int kgraph_adaptive_save(void) {
  int i, failed = 0;
  pthread_mutex_lock(&lock);
  init_locked();
  for (i = 0; i < n_series; ++i)
    if (series_tab[i].dirty && save_series_locked(i) != 0) ++failed;
  pthread_mutex_unlock(&lock);
  return failed;
}

static void save_at_exit(void) { kgraph_adaptive_save(); }

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
    if (enabled) {
      load_locked(id);
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
  if (e && calibrating(e)) {
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
  e = insert(series, key);
  if (e) {
    if (isnan(e->prior_log)) {
      e->prior_log = log(prior_us);
      e->prior_us = prior_us;
      if (isnan(e->sigma) && sigma > 0 && isfinite(sigma)) e->sigma = sigma; /* else: the global sigma */
      refresh(e);
    }
    us = calibrating(e) ? NAN : e->post_us;
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
  e = insert(series, key);
  if (!e) {
    pthread_mutex_unlock(&lock);
    return -1;
  }
  if (isnan(e->prior_log) && prior_us > 0 && isfinite(prior_us)) {
    e->prior_log = log(prior_us);
    e->prior_us = prior_us;
  }
  e->n += 1; /* Welford: running mean and sum of squared deviations of ln(time) */
  delta = y - e->mean_log;
  e->mean_log += delta / (double)e->n;
  e->m2 += delta * (y - e->mean_log);
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
    if (post_log) *post_log = post_log_of(e);
    if (post_sigma)
      *post_sigma = isnan(e->prior_log) ? (e->n ? obs_sigma / sqrt((double)e->n) : NAN)
                                        : 1.0 / sqrt(1.0 / (sigma_of(e) * sigma_of(e)) + (double)e->n / (obs_sigma * obs_sigma));
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
