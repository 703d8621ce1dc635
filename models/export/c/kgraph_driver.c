/* Driver for an exported kgraph model (kgraph_model.c).
 *
 * Predict mode (default): reads lines "KERNEL DEVICE_INDEX F1 ... FN" (N = KGRAPH_N_LAUNCH) from
 * stdin and prints "rc time_us log_t0 .. log_t4 bound p0 p1 p2" (%.9g) and then the natural-unit
 * fields of KGRAPH_FOR_EACH_TARGET (time_ns bandwidth_gbs footprint_bytes flops bytes, %.17g) per line.
 * Features mode (exports with kgraph_features): kgraph_driver --features, see features() below.
 * Embedding mode: kgraph_driver --embedding, see embedding() below.
 * Bench mode: kgraph_driver --bench CALLS KERNEL DEVICE_INDEX F1 ... FN times CALLS calls of
 * kgraph_predict (name lookup included) in REPEATS=7 rounds and prints the median ns per call.
 * Build: gcc -O2 -std=c99 kgraph_driver.c kgraph_model.c -I<export dir> -lm
 */
#define _POSIX_C_SOURCE 199309L
#include "kgraph_model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int bench(int argc, char **argv) {
  double x[KGRAPH_N_LAUNCH > 0 ? KGRAPH_N_LAUNCH : 1], per_call[7], sink = 0.0;
  long calls, i;
  int r, j, device;
  kgraph_prediction p;
  if (argc != 5 + KGRAPH_N_LAUNCH) {
    fprintf(stderr, "usage: %s --bench CALLS KERNEL DEVICE_INDEX F1..F%d\n", argv[0], KGRAPH_N_LAUNCH);
    return 2;
  }
  calls = atol(argv[2]);
  device = atoi(argv[4]);
  for (j = 0; j < KGRAPH_N_LAUNCH; ++j) x[j] = atof(argv[5 + j]);
  if (kgraph_predict(argv[3], x, device, &p) != KGRAPH_OK) {
    fprintf(stderr, "kgraph_driver: unknown kernel %s or device %d\n", argv[3], device);
    return 1;
  }
  for (r = 0; r < 7; ++r) {
    double t0 = now_ns();
    for (i = 0; i < calls; ++i) {
      x[0] += 1e-9; /* defeat hoisting of the call out of the loop */
      kgraph_predict(argv[3], x, device, &p);
      sink += p.time_us;
    }
    per_call[r] = (now_ns() - t0) / (double)calls;
  }
  qsort(per_call, 7, sizeof(double), cmp_double);
  printf("median_ns_per_call %.3f min_ns_per_call %.3f checksum %.6g\n", per_call[3], per_call[0], sink);
  return 0;
}

#ifdef KGRAPH_HAS_FEATURES
/* Features mode: lines "KERNEL DEVICE DIMS G0 G1 G2 L0 L1 L2 NARGS A1 .. ANARGS" -> rc and features. */
static int features(void) {
  char kernel[512];
  int device, dims, n_args, j, rc;
  double g[3], l[3], args[16], out[KGRAPH_N_LAUNCH];
  while (scanf("%511s %d %d %lf %lf %lf %lf %lf %lf %d", kernel, &device, &dims, &g[0], &g[1], &g[2],
               &l[0], &l[1], &l[2], &n_args) == 10) {
    if (n_args > 16) return 2; /* a negative count is passed on: kgraph_features must refuse it */
    for (j = 0; j < n_args; ++j)
      if (scanf("%lf", &args[j]) != 1) return 2;
    rc = kgraph_features(kgraph_kernel_index(kernel), dims, g, l, args, n_args, device, out);
    printf("%d", rc);
    for (j = 0; j < KGRAPH_N_LAUNCH; ++j) printf(" %.17g", out[j]); /* all NaN on an error */
    printf("\n");
  }
  return 0;
}
#endif

/* Embedding mode: lines "CODE[KGRAPH_CODE_DIM] LAUNCH[KGRAPH_N_LAUNCH] DEVICE[KGRAPH_N_DEVICE_FEATURES]"
   -> "rc time_us" of kgraph_predict_embedding. */
static int embedding(void) {
  float code[KGRAPH_CODE_DIM > 0 ? KGRAPH_CODE_DIM : 1];
  double x[KGRAPH_N_LAUNCH > 0 ? KGRAPH_N_LAUNCH : 1], d[KGRAPH_N_DEVICE_FEATURES];
  int j, rc;
  kgraph_prediction p;
  for (;;) {
    for (j = 0; j < KGRAPH_CODE_DIM; ++j)
      if (scanf("%f", &code[j]) != 1) return 0;
    for (j = 0; j < KGRAPH_N_LAUNCH; ++j)
      if (scanf("%lf", &x[j]) != 1) return 2;
    for (j = 0; j < KGRAPH_N_DEVICE_FEATURES; ++j)
      if (scanf("%lf", &d[j]) != 1) return 2;
    rc = kgraph_predict_embedding(code, x, d, &p);
    printf("%d %.9g\n", rc, p.time_us);
  }
}

int main(int argc, char **argv) {
  char kernel[512];
  int device, j, rc;
  double x[KGRAPH_N_LAUNCH > 0 ? KGRAPH_N_LAUNCH : 1];
  kgraph_prediction p;
  if (argc > 1 && strcmp(argv[1], "--bench") == 0) return bench(argc, argv);
  if (argc > 1 && strcmp(argv[1], "--embedding") == 0) return embedding();
#ifdef KGRAPH_HAS_FEATURES
  if (argc > 1 && strcmp(argv[1], "--features") == 0) return features();
#endif
  while (scanf("%511s %d", kernel, &device) == 2) {
    for (j = 0; j < KGRAPH_N_LAUNCH; ++j)
      if (scanf("%lf", &x[j]) != 1) {
        fprintf(stderr, "kgraph_driver: expected %d launch features\n", KGRAPH_N_LAUNCH);
        return 2;
      }
    memset(&p, 0, sizeof p);
    rc = kgraph_predict(kernel, x, device, &p);
    printf("%d %.9g", rc, p.time_us);
    for (j = 0; j < KGRAPH_N_TARGETS; ++j) printf(" %.9g", p.log_targets[j]);
    printf(" %d", p.bound);
    for (j = 0; j < KGRAPH_N_BOUND_CLASSES; ++j) printf(" %.9g", p.bound_prob[j]);
#define KGRAPH_PRINT_FIELD(field) printf(" %.17g", p.field);
    KGRAPH_FOR_EACH_TARGET(KGRAPH_PRINT_FIELD)
    KGRAPH_FOR_EACH_INTERVAL_END(KGRAPH_PRINT_FIELD)
#undef KGRAPH_PRINT_FIELD
    printf("\n");
  }
  return 0;
}
