/* kgraph adaptive perfmodel: its history files (see kgraph_adaptive.h, "Persistence"). */
#include "kgraph_adaptive_int.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void file_name(const struct series *s, char *out, size_t len) {
  char c[NAME_LEN], a[NAME_LEN];
  size_t i;
  for (i = 0; i < NAME_LEN; ++i) {
    char x = s->codelet[i], y = s->arch[i];
    c[i] = (x && !((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '_' || x == '-')) ? '_' : x;
    a[i] = (y && !((y >= 'a' && y <= 'z') || (y >= 'A' && y <= 'Z') || (y >= '0' && y <= '9') || y == '_' || y == '-')) ? '_' : y;
  }
  snprintf(out, len, "%s/%s.%s.kgpm", kga_dir, c, a);
}

/* Read a series' file: every line must parse, else the whole file is ignored (warning). */
void kga_load_locked(int id) {
  char path[4400], line[512], magic[64];
  struct series *s = &kga_series_tab[id];
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
    struct entry *e = kga_insert(id, rows[i].key);
    if (!e) break;
    e->n = rows[i].n;
    e->mean_log = rows[i].mean_log;
    e->m2 = rows[i].m2;
    e->prior_log = rows[i].prior_log;
    e->prior_us = exp(rows[i].prior_log);
    e->sigma = rows[i].sigma;
    kga_contrib(e, +1);
    kga_refresh(e);
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

int kga_save_series_locked(int id) {
  char path[4400], tmp[4500];
  struct series *s = &kga_series_tab[id];
  FILE *f;
  size_t i;
  int ok;
  file_name(s, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  if (mkdirs(kga_dir) != 0 || !(f = fopen(tmp, "w"))) {
    fprintf(stderr, "kgraph perfmodel: warning: cannot write %s (%s)\n", path, strerror(errno));
    return -1;
  }
  fprintf(f, FILE_MAGIC " %s %s\n", s->codelet, s->arch);
  fprintf(f, "# key n mean_ln_us m2_ln prior_ln_us posterior_us prior_sigma_ln (nan: the global prior_sigma %g; obs_sigma %g)\n",
          kga_prior_sigma, kga_obs_sigma);
  for (i = 0; i < kga_capacity; ++i) {
    const struct entry *e = &kga_table[i];
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
