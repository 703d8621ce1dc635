/* The adaptive perfmodel's cost per scheduling query, as StarPU's dmda uses it (issue 12 §6: <= 1 us per call).
 * No StarPU, no export: kgraph_adaptive.c/_io.c only; the static prior is a precomputed table (what the
 * static-prediction cache of kgraph_starpu.c serves). Each measured "run" is a fresh process (fork), as in
 * the five-run benchmark, so first-call costs (history file read, table allocation, page faults) count:
 *   per run: CODELETS codelets x ARCHS archs x FOOTPRINTS launch keys; TASKS tasks, each asked on every
 *   arch (the cost function: series of (codelet, arch) looked up once per process like series_of, then
 *   kgraph_adaptive_lookup, and on a miss kgraph_adaptive_estimate_sigma with the prior), then one
 *   observation (untimed) on the arch the cheapest answer names -- so every query after an observation
 *   sees changed aggregates, as in a real run.
 * The history directory is shared by the runs (run 1 cold, then warm like the five runs). Prints per run the
 * mean ns per call (all calls, as the five-run reports) and the median ns of the calls after the first of
 * each series (the steady state); then the medians over runs 2..RUNS. BENCH_ANSWERS=1 also prints every
 * answer (%.17g): two builds of the model must print the same lines (the predictions are unchanged).
 *   cc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -I kgraph/app/runtime/starpu benchmarks/adaptive_cost_bench.c \
 *      kgraph/app/runtime/starpu/kgraph_adaptive.c kgraph/app/runtime/starpu/kgraph_adaptive_io.c -lm -lpthread \
 *      -o /tmp/adaptive_cost_bench
 *   KGRAPH_PERFMODEL_DIR=$(mktemp -d) /tmp/adaptive_cost_bench [RUNS=9 TASKS=600 CODELETS=4 FOOTPRINTS=3 ARCHS=2]
 */
#include "kgraph_adaptive.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *codelet_names[] = {"tile_potrf", "tile_trsm", "tile_syrk", "tile_gemm", "k4", "k5", "k6", "k7"};
static const char *arch_names[] = {"cpu_0", "opencl_0", "opencl_1", "opencl_2"};
static int runs = 9, tasks = 600, n_codelets = 4, n_footprints = 3, n_archs = 2;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static uint64_t rng;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* one process: returns through the pipe mean ns/call and the steady median */
static void one_run(int run, int fd) {
  int series[8][4], c, a, f, t, n_calls = 0, n_steady = 0;
  uint64_t keys[8][16];
  double prior[8][16][4], sigma[8][16][4], *all = malloc(sizeof(double) * (size_t)tasks * (size_t)n_archs);
  double *steady = malloc(sizeof(double) * (size_t)tasks * (size_t)n_archs), sum = 0.0, out[2];
  int answers = getenv("BENCH_ANSWERS") != NULL;
  rng = 88172645463325252ull + (uint64_t)run * 7919u;
  for (c = 0; c < n_codelets; ++c) {
    for (f = 0; f < n_footprints; ++f) {
      double launch[4] = {2, 256.0 * (f + 1), 16, (double)c};
      keys[c][f] = kgraph_adaptive_key(launch, 4);
      for (a = 0; a < n_archs; ++a) {
        prior[c][f][a] = 50.0 * (c + 1) * (f + 1) * (a ? 0.2 : 1.0) * (c == 0 && a ? 40.0 : 1.0); /* potrf: a miss */
        sigma[c][f][a] = (c + f + a) % 3 == 0 ? NAN : 0.25;
      }
    }
    for (a = 0; a < n_archs; ++a) series[c][a] = -1;
#ifdef KGRAPH_ADAPTIVE_PRELOAD
    if (!getenv("BENCH_NO_PRELOAD")) kgraph_adaptive_preload(codelet_names[c]); /* model init, untimed */
#endif
  }
  for (t = 0; t < tasks; ++t) {
    int best = 0;
    double best_cost = INFINITY;
    c = (int)(uniform() * n_codelets);
    f = (int)(uniform() * n_footprints);
    for (a = 0; a < n_archs; ++a) {
      double t0 = now_ns(), cost, dt;
      int first = series[c][a] < 0;
      if (first) series[c][a] = kgraph_adaptive_series(codelet_names[c], arch_names[a]);
      if (!kgraph_adaptive_lookup(series[c][a], keys[c][f], &cost))
        cost = kgraph_adaptive_estimate_sigma(series[c][a], keys[c][f], prior[c][f][a], sigma[c][f][a]);
      dt = now_ns() - t0;
      all[n_calls++] = dt;
      sum += dt;
      if (!first) steady[n_steady++] = dt;
      if (answers) printf("answer %d %d %d %.17g\n", run + 1, t, a, cost); /* BENCH_ANSWERS: compare builds */
      if (isnan(cost)) cost = -1.0; /* calibrate: dmda runs it there */
      if (cost < best_cost) best_cost = cost, best = a;
    }
    /* the task runs on `best`: its time is the prior off by a codelet/arch-dependent factor, with noise */
    kgraph_adaptive_observe(series[c][best], keys[c][f], NAN,
                            prior[c][f][best] * (c == 0 && best ? 30.0 : 1.5) * exp(0.1 * (uniform() - 0.5)));
  }
  qsort(steady, (size_t)n_steady, sizeof *steady, cmp);
  out[0] = sum / n_calls;
  out[1] = n_steady ? steady[n_steady / 2] : NAN;
  fflush(stdout);
  if (write(fd, out, sizeof out) != (ssize_t)sizeof out) _exit(1);
  free(all);
  free(steady);
  _exit(kgraph_adaptive_save() == 0 ? 0 : 1);
}

int main(int argc, char **argv) {
  double mean[64], med[64], m2[64], s2[64];
  int r, fds[2];
  if (argc > 1) runs = atoi(argv[1]);
  if (argc > 2) tasks = atoi(argv[2]);
  if (argc > 3) n_codelets = atoi(argv[3]);
  if (argc > 4) n_footprints = atoi(argv[4]);
  if (argc > 5) n_archs = atoi(argv[5]);
  if (runs < 2 || runs > 64 || tasks < 1 || n_codelets < 1 || n_codelets > 8 || n_footprints < 1 ||
      n_footprints > 16 || n_archs < 1 || n_archs > 4) {
    fprintf(stderr, "usage: %s [RUNS 2..64] [TASKS] [CODELETS 1..8] [FOOTPRINTS 1..16] [ARCHS 1..4]\n", argv[0]);
    return 2;
  }
  for (r = 0; r < runs; ++r) {
    pid_t pid;
    int status;
    double out[2];
    if (pipe(fds) != 0) return 1;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
      close(fds[0]);
      one_run(r, fds[1]);
    }
    close(fds[1]);
    if (read(fds[0], out, sizeof out) != (ssize_t)sizeof out || waitpid(pid, &status, 0) != pid || status != 0) {
      fprintf(stderr, "run %d failed\n", r + 1);
      return 1;
    }
    close(fds[0]);
    mean[r] = out[0];
    med[r] = out[1];
    printf("run %d mean_ns_per_call %.1f steady_median_ns %.1f\n", r + 1, mean[r], med[r]);
  }
  memcpy(m2, mean + 1, sizeof(double) * (size_t)(runs - 1));
  memcpy(s2, med + 1, sizeof(double) * (size_t)(runs - 1));
  qsort(m2, (size_t)(runs - 1), sizeof *m2, cmp);
  qsort(s2, (size_t)(runs - 1), sizeof *s2, cmp);
  printf("adaptive_cost_bench tasks %d codelets %d footprints %d archs %d warm_runs %d mean_ns_per_call %.1f "
         "steady_median_ns %.1f\n", tasks, n_codelets, n_footprints, n_archs, runs - 1, m2[(runs - 1) / 2],
         s2[(runs - 1) / 2]);
  return 0;
}
