/* Per-core descriptor micro-benchmarks (not corpus kernels): FMA peak and copy bandwidth on t threads.
 * Built with -O3 -march=native -fopenmp; GCC contracts a * b + c into FMA instructions. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define CHAINS 12
typedef double v8d __attribute__((vector_size(64)));
typedef float v16f __attribute__((vector_size(64)));
volatile double kg_sink;

#define FMA_BODY(VT, LANES)                                                   \
    VT a[CHAINS], b, c;                                                       \
    for (int l = 0; l < LANES; l++) { b[l] = 0.999999; c[l] = 1e-7; }        \
    for (int ch = 0; ch < CHAINS; ch++)                                       \
        for (int l = 0; l < LANES; l++) a[ch][l] = 1.0 + 0.01 * ch + 0.001 * l; \
    for (long it = 0; it < iters; it++)                                       \
        for (int ch = 0; ch < CHAINS; ch++) a[ch] = a[ch] * b + c;            \
    double s = 0;                                                             \
    for (int ch = 0; ch < CHAINS; ch++)                                       \
        for (int l = 0; l < LANES; l++) s += a[ch][l];                        \
    kg_sink = s;

/* GFLOP/s of FMA chains on `threads` threads (fp64 when dbl, else fp32), best of `reps` */
double kg_fma_gflops(int dbl, int threads, long iters, int reps) {
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
        {
            if (dbl) { FMA_BODY(v8d, 8) } else { FMA_BODY(v16f, 16) }
        }
        double dt = omp_get_wtime() - t0;
        double fl = 2.0 * CHAINS * (dbl ? 8 : 16) * (double)iters * threads;
        if (fl / dt / 1e9 > best) best = fl / dt / 1e9;
    }
    return best;
}

/* copy bandwidth (bytes read + written per second, GB/s) of `nbytes` on `threads` threads, inner
 * repeats per timing, best of `reps` */
double kg_copy_gbs(int threads, long nbytes, int inner, int reps) {
    long n = nbytes / sizeof(double);
    double *src = aligned_alloc(64, n * sizeof(double)), *dst = aligned_alloc(64, n * sizeof(double));
    if (!src || !dst) return -1;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < n; i++) { src[i] = (double)i; dst[i] = 0; }
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
        for (int it = 0; it < inner; it++) {
#pragma omp parallel num_threads(threads)
            {
                int t = omp_get_thread_num(), nt = omp_get_num_threads();
                long lo = n * t / nt, hi = n * (t + 1) / nt;
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof(double));
            }
            src[it % n] += 1;
        }
        double dt = omp_get_wtime() - t0;
        double gbs = 2.0 * nbytes * inner / dt / 1e9;
        if (gbs > best) best = gbs;
    }
    kg_sink = dst[n / 2];
    free(src); free(dst);
    return best;
}

void kg_empty(void) {}
