/* kgraph adaptive perfmodel: its history files (see kgraph_adaptive.h, "Persistence"). */
#include "kgraph_adaptive_int.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void sanitize(const char *in, char out[NAME_LEN]) {
  size_t i;
  for (i = 0; i < NAME_LEN; ++i) {
    char x = in[i];
    out[i] = (x && !((x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '_' || x == '-')) ? '_' : x;
    if (!x) break;
  }
  out[NAME_LEN - 1] = 0;
}

static void file_name(const struct series *s, char *out, size_t len) {
  char c[NAME_LEN], a[NAME_LEN];
  sanitize(s->codelet, c);
  sanitize(s->arch, a);
  snprintf(out, len, "%s/%s.%s.kgpm", kga_dir, c, a);
}

/* A history file read into memory: rows, or why not (ENOENT: no file; another errno: unreadable; bad: the
 * line that does not parse). Read ahead by kgraph_adaptive_preload (model init), applied at the series'
 * first use exactly as a file read then would be: the cost function's first call does no I/O. */
struct row {
  uint64_t key;
  long n;
  double mean_log, m2, prior_log, sigma;
};
struct parsed {
  char path[4400];
  int err, bad; /* errno of fopen (0: opened); bad: did not parse (lineno) */
  long lineno;
  struct row *rows;
  size_t n_rows;
  struct parsed *next;
};
static struct parsed *pending;                 /* preloaded files not yet used by their series */
static char scanned[MAX_SERIES][NAME_LEN];     /* codelets whose files were all preloaded */
static int n_scanned;

static void parse_file(struct parsed *p) {
  char line[512], magic[64];
  FILE *f;
  size_t cap_rows = 0;
  struct row *grown;
  int version = 0;
  p->err = p->bad = 0;
  p->lineno = 0;
  p->rows = NULL;
  p->n_rows = 0;
  f = fopen(p->path, "r");
  if (!f) {
    p->err = errno;
    return;
  }
  while (fgets(line, sizeof line, f)) {
    unsigned long long key;
    long n;
    double mean_log, m2, prior_log, post_us, sigma = NAN;
    char extra[2];
    int fields;
    ++p->lineno;
    if (!strchr(line, '\n') && !feof(f)) goto bad;
    if (p->lineno == 1) {
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
    if (p->n_rows == cap_rows) {
      cap_rows = cap_rows ? cap_rows * 2 : 16;
      grown = realloc(p->rows, cap_rows * sizeof *p->rows);
      if (!grown) goto bad;
      p->rows = grown;
    }
    p->rows[p->n_rows].key = key;
    p->rows[p->n_rows].n = n;
    p->rows[p->n_rows].mean_log = mean_log;
    p->rows[p->n_rows].m2 = m2;
    p->rows[p->n_rows].prior_log = prior_log;
    p->rows[p->n_rows].sigma = sigma;
    ++p->n_rows;
  }
  if (p->lineno == 0 || ferror(f)) goto bad;
  fclose(f);
  return;
bad:
  fclose(f);
  p->bad = 1;
}

/* Read every history file of `codelet` in kga_dir now (see struct parsed). */
void kga_preload_locked(const char *codelet) {
  char c[NAME_LEN], prefix[NAME_LEN + 1];
  DIR *d;
  struct dirent *de;
  size_t lp, ln;
  int i;
  sanitize(codelet, c);
  for (i = 0; i < n_scanned; ++i)
    if (strcmp(scanned[i], c) == 0) return;
  if (n_scanned >= MAX_SERIES) return;
  snprintf(prefix, sizeof prefix, "%s.", c);
  lp = strlen(prefix);
  d = opendir(kga_dir);
  if (!d && errno != ENOENT) return; /* unreadable: the series read their files themselves, as before */
  while (d && (de = readdir(d))) {
    struct parsed *p;
    ln = strlen(de->d_name);
    if (ln <= lp + 5 || strncmp(de->d_name, prefix, lp) != 0 || strcmp(de->d_name + ln - 5, ".kgpm") != 0 ||
        memchr(de->d_name + lp, '.', ln - lp - 5))
      continue;
    if (!(p = calloc(1, sizeof *p))) break;
    snprintf(p->path, sizeof p->path, "%s/%s", kga_dir, de->d_name);
    parse_file(p);
    p->next = pending;
    pending = p;
  }
  if (d) closedir(d);
  snprintf(scanned[n_scanned++], NAME_LEN, "%s", c);
}

/* Read a series' file (preloaded or now): every line must parse, else the whole file is ignored (warning). */
void kga_load_locked(int id) {
  struct series *s = &kga_series_tab[id];
  struct parsed now, *p = NULL, **link;
  char c[NAME_LEN];
  size_t i;
  int was_scanned = 0;
  file_name(s, now.path, sizeof now.path);
  for (link = &pending; *link; link = &(*link)->next)
    if (strcmp((*link)->path, now.path) == 0) {
      p = *link;
      *link = p->next; /* used once: the series keeps its entries from now on */
      break;
    }
  if (!p) {
    sanitize(s->codelet, c);
    for (i = 0; i < (size_t)n_scanned; ++i) was_scanned |= strcmp(scanned[i], c) == 0;
    if (was_scanned) return; /* not in the directory when its codelet was preloaded: no history */
    parse_file(&now);
    p = &now;
  }
  if (p->err) {
    if (p->err != ENOENT)
      fprintf(stderr, "kgraph perfmodel: warning: cannot read %s (%s); starting from kgraph's prior\n", p->path,
              strerror(p->err));
  } else if (p->bad) {
    fprintf(stderr, "kgraph perfmodel: warning: %s is corrupted (line %ld); ignored, starting from kgraph's prior\n",
            p->path, p->lineno);
    s->dirty = 1; /* replace it at the next save */
  } else {
    for (i = 0; i < p->n_rows; ++i) {
      struct entry *e = kga_insert(id, p->rows[i].key);
      if (!e) break;
      e->n = p->rows[i].n;
      e->mean_log = p->rows[i].mean_log;
      e->m2 = p->rows[i].m2;
      e->prior_log = p->rows[i].prior_log;
      e->prior_us = exp(p->rows[i].prior_log);
      e->sigma = p->rows[i].sigma;
      kga_contrib(e, +1);
      kga_refresh(e);
    }
  }
  free(p->rows);
  if (p != &now) free(p);
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
