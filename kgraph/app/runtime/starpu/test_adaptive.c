/* Test program of the adaptive perfmodel core (kgraph_adaptive.c; no StarPU, no export needed):
 *
 *   test_adaptive converge N PRIOR_US TRUE_US   N synthetic observations (log-normal around TRUE_US, sigma 0.1,
 *                                               deterministic); checks the first estimate is the prior and
 *                                               the estimate converges to the observations' geometric mean
 *   test_adaptive write PRIOR_US T1 T2 ...      observes T1.. for one key, saves; prints the posterior
 *   test_adaptive read PRIOR_US                 prints the first estimate of that key in a new process (and the
 *                                               prior sigma it uses)
 *   test_adaptive sigma PRIOR_US LO HI T1 ...   the prior with its 80% interval [LO, HI] (sigma from it; LO/HI
 *                                               "nan": the global sigma), observes T1..; prints sigma, w0 and
 *                                               the posterior; saves
 *   test_adaptive calibrate PRIOR_US LO HI T1 ..  per step asks the estimate then observes Ti; prints each
 *                                               answer ("nan" = calibrate) and the count of NAN answers
 *   test_adaptive script OP ...                 OPs in order, each printed with its answer (tests/test_adaptive_rule.py
 *                                               replays them through kgraph.app.runtime.adaptive_rule):
 *                                               e:CODELET:ARCH:KEY:PRIOR_US:SIGMA (estimate), o:CODELET:ARCH:KEY:US
 *                                               (observe), s:CODELET:ARCH:KEY (stats: n, posterior mean and sd)
 *   test_adaptive bench CALLS                   ns per key hash + kgraph_adaptive_lookup (warm key; median of 21 rounds)
 *
 * Every mode prints one line "test_adaptive MODE key value ..." and exits 0 when its checks hold.
 * History files go to $KGRAPH_PERFMODEL_DIR (codelet "synthetic", arch "opencl_0").
 */
#include "kgraph_adaptive.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void) { /* xorshift64, (0, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void) { return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform()); }

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const double launch[4] = {1, 65536, 64, 2.0};
  uint64_t key = kgraph_adaptive_key(launch, 4);
  int s = kgraph_adaptive_series("synthetic", "opencl_0");
  if (argc < 2 || s < 0) return 2;
  if (strcmp(argv[1], "converge") == 0 && argc == 5) {
    int n = atoi(argv[2]), i, ok;
    double prior = atof(argv[3]), truth = atof(argv[4]), sum_log = 0.0, first, est = NAN, gm, bound, w0;
    double prior_sigma, obs_sigma;
    long k;
    double mean_log, prior_log, post_log, post_sigma;
    first = kgraph_adaptive_estimate(s, key, prior);
    for (i = 1; i <= n; ++i) {
      double t = truth * exp(0.1 * normal());
      sum_log += log(t);
      kgraph_adaptive_observe(s, key, prior, t);
      if (!kgraph_adaptive_lookup(s, key, &est)) return 1;
      if (i == 1 || i == 2 || i == 5 || i == 10 || i == 100 || i == n)
        printf("test_adaptive step %d estimate_us %.6g geomean_us %.6g\n", i, est, exp(sum_log / i));
    }
    gm = exp(sum_log / n);
    kgraph_adaptive_stats(s, key, &k, &mean_log, &prior_log, &post_log, &post_sigma);
    prior_sigma = getenv("KGRAPH_PERFMODEL_PRIOR_SIGMA") ? atof(getenv("KGRAPH_PERFMODEL_PRIOR_SIGMA")) : KGRAPH_ADAPTIVE_PRIOR_SIGMA;
    obs_sigma = getenv("KGRAPH_PERFMODEL_OBS_SIGMA") ? atof(getenv("KGRAPH_PERFMODEL_OBS_SIGMA")) : KGRAPH_ADAPTIVE_OBS_SIGMA;
    w0 = obs_sigma * obs_sigma / (prior_sigma * prior_sigma);
    /* the estimate is the posterior the stats report; with n = 1000 it is the observations' geometric mean */
    (void)w0;
    bound = fabs(log(est) - post_log);
    ok = first == prior && k == n && bound < 1e-9 && fabs(est / gm - 1.0) < 1e-3;
    printf("test_adaptive converge n %d prior_us %.17g first_us %.17g estimate_us %.17g geomean_us %.17g rel_err %.3g "
           "post_sigma %.4g rule_err %.3g ok %d\n",
           n, prior, first, est, gm, fabs(est / gm - 1.0), post_sigma, bound, ok);
    return ok ? 0 : 1;
  }
  if (strcmp(argv[1], "write") == 0 && argc >= 4) {
    double prior = atof(argv[2]), est = NAN;
    int i;
    kgraph_adaptive_estimate(s, key, prior);
    for (i = 3; i < argc; ++i) kgraph_adaptive_observe(s, key, prior, atof(argv[i]));
    kgraph_adaptive_lookup(s, key, &est);
    printf("test_adaptive write n %d posterior_us %.17g failed_saves %d\n", argc - 3, est, kgraph_adaptive_save());
    return 0;
  }
  if (strcmp(argv[1], "read") == 0 && argc == 3) {
    double prior = atof(argv[2]), est = NAN;
    long n = 0;
    int warm = kgraph_adaptive_lookup(s, key, &est);
    if (!warm) est = kgraph_adaptive_estimate(s, key, prior);
    kgraph_adaptive_stats(s, key, &n, NULL, NULL, NULL, NULL);
    printf("test_adaptive read warm %d n %ld first_us %.17g prior_sigma %.17g\n", warm, n, est,
           kgraph_adaptive_prior_sigma(s, key));
    return 0;
  }
  if (strcmp(argv[1], "sigma") == 0 && argc >= 5) {
    double prior = atof(argv[2]), sigma = kgraph_adaptive_sigma_of_interval(atof(argv[3]), atof(argv[4])), est = NAN;
    double used, post_sigma;
    int i;
    long n = 0;
    double first = kgraph_adaptive_estimate_sigma(s, key, prior, sigma);
    for (i = 5; i < argc; ++i) kgraph_adaptive_observe(s, key, prior, atof(argv[i]));
    kgraph_adaptive_lookup(s, key, &est);
    used = kgraph_adaptive_prior_sigma(s, key);
    kgraph_adaptive_stats(s, key, &n, NULL, NULL, NULL, &post_sigma);
    printf("test_adaptive sigma n %ld interval_sigma %.17g prior_sigma %.17g w0 %.17g first_us %.17g posterior_us %.17g "
           "post_sigma %.17g failed_saves %d\n", n, sigma, used,
           KGRAPH_ADAPTIVE_OBS_SIGMA * KGRAPH_ADAPTIVE_OBS_SIGMA / (used * used), first, est, post_sigma,
           kgraph_adaptive_save());
    return 0;
  }
  if (strcmp(argv[1], "calibrate") == 0 && argc >= 5) {
    double prior = atof(argv[2]), sigma = kgraph_adaptive_sigma_of_interval(atof(argv[3]), atof(argv[4])), est, last = NAN;
    int i, nans = 0, lookups_nan = 0;
    for (i = 5; i <= argc; ++i) { /* one more question than observations: the answer after the last one */
      double looked = 0;
      est = kgraph_adaptive_estimate_sigma(s, key, prior, sigma);
      if (kgraph_adaptive_lookup(s, key, &looked) == 2 && isnan(looked)) ++lookups_nan;
      printf("test_adaptive step %d answer_us %.17g\n", i - 4, est);
      if (isnan(est)) ++nans;
      last = est;
      if (i < argc) kgraph_adaptive_observe(s, key, prior, atof(argv[i]));
    }
    printf("test_adaptive calibrate asked %d nan_answers %d nan_lookups %d last_us %.17g\n", argc - 4, nans, lookups_nan, last);
    return 0;
  }
  if (strcmp(argv[1], "script") == 0) {
    int i;
    for (i = 2; i < argc; ++i) {
      char op, codelet[64], arch[64];
      double k, a = NAN, b = NAN, post_log = NAN, post_sigma = NAN;
      long n = 0;
      int id;
      if (sscanf(argv[i], "%c:%63[^:]:%63[^:]:%lf:%lf:%lf", &op, codelet, arch, &k, &a, &b) < 4) return 2;
      id = kgraph_adaptive_series(codelet, arch);
      if (op == 'e') a = kgraph_adaptive_estimate_sigma(id, (uint64_t)k, a, b);
      else if (op == 'o') a = kgraph_adaptive_observe(id, (uint64_t)k, NAN, a);
      else if (op == 's') a = kgraph_adaptive_stats(id, (uint64_t)k, &n, NULL, NULL, &post_log, &post_sigma);
      printf("test_adaptive script %d %c %.17g %ld %.17g %.17g\n", i - 1, op, a, n, post_log, post_sigma);
    }
    return 0;
  }
  if (strcmp(argv[1], "bench") == 0 && argc == 3) {
    long calls = atol(argv[2]), i;
    double rounds[21], est = 0, sink = 0;
    int r;
    {
      double l[16] = {1, 65536, 1, 1, 64, 1, 1, 65536, 2.0};
      kgraph_adaptive_estimate(s, kgraph_adaptive_key(l, 16), 100.0);
      kgraph_adaptive_observe(s, kgraph_adaptive_key(l, 16), 100.0, 50.0);
    }
    for (r = 0; r < 21; ++r) {
      double t0 = now_ns();
      for (i = 0; i < calls; ++i) {
        double l[16] = {1, 65536, 1, 1, 64, 1, 1, 65536, 2.0}; /* dims, global, local, args: what the glue hashes */
        kgraph_adaptive_lookup(s, kgraph_adaptive_key(l, 16), &est);
        sink += est;
      }
      rounds[r] = (now_ns() - t0) / (double)calls;
    }
    qsort(rounds, 21, sizeof *rounds, cmp);
    printf("test_adaptive bench hash_lookup_ns %.2f min_ns %.2f sink %g\n", rounds[10], rounds[0], sink > 0 ? 1.0 : 0.0);
    return 0;
  }
  fprintf(stderr, "usage: see the comment at the top of test_adaptive.c\n");
  return 2;
}
