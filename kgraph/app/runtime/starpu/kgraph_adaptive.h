/* kgraph adaptive perfmodel (issue 12 §5): kgraph's prediction as a prior, updated in log space with every
 * observed execution of (codelet, launch key, architecture), persisted across runs.
 *
 * Rule (normal-normal, log space; docs/RUNTIME.md "Adaptive perfmodel"): the prior of ln(time) is
 * N(ln(prior_us), s0^2), each observation ln(t_i) ~ N(theta, s^2). The posterior mean of theta is
 *     m_n = (w0 ln(prior_us) + sum_i ln(t_i)) / (w0 + n),   w0 = s^2 / s0^2,
 * its variance 1 / (1/s0^2 + n/s^2); the estimate is exp(m_n) (the posterior median time). n = 0 gives the
 * prior exactly; as n grows m_n tends to the mean of ln(t_i), i.e. the estimate to the geometric mean.
 *   s0 = per entry: the prediction's own 80% interval [lo, hi] of the time (the 0.1/0.9 quantiles of
 *        ln time: s0 = (ln hi - ln lo) / (2 * 1.2816), kgraph_adaptive_sigma_of_interval), given to
 *        kgraph_adaptive_estimate_sigma; without one (NAN, an export without interval head) the global
 *        KGRAPH_PERFMODEL_PRIOR_SIGMA (default 1.04: RMS of ln(pred/true) of the shipped head on kernels it
 *        never saw, benchmarks/results/holdout_xeon/predictions.parquet, 1,232 launches);
 *   s  = KGRAPH_PERFMODEL_OBS_SIGMA (default 0.2: run-to-run spread of one task's time, see docs).
 *
 * Calibrate when wide (off by default): with KGRAPH_PERFMODEL_CALIBRATE_WIDTH=R (a ratio hi/lo > 1), an
 * entry whose own interval is wider than R (s0 > ln R / (2 * 1.2816)) answers NAN -- StarPU's "not
 * calibrated": dmda/dmdas then run the task on the least-loaded worker not yet calibrated for it -- until it
 * has KGRAPH_PERFMODEL_CALIBRATE_RUNS observations (default 1), then the posterior as usual. Entries
 * without an interval (global s0) are never held back.
 *
 * Persistence: one text file per (codelet, arch), $KGRAPH_PERFMODEL_DIR/<codelet>.<arch>.kgpm (default
 * directory ~/.kgraph/perfmodel), read when the pair is first used, written atomically (temporary file +
 * rename) by kgraph_adaptive_save() and at exit. Format (version 2):
 *     kgraph-perfmodel 2 <codelet> <arch>
 *     # comment
 *     <key hex> <n> <mean ln us> <Welford M2 of ln us> <prior ln us> <posterior us> <prior sigma ln|nan>
 * one line per key with observations; prior sigma nan = the global sigma. Version 1 files (header
 * "kgraph-perfmodel 1", lines of the first 6 fields) are still read: their entries use the global sigma. A file that does not parse is ignored with a
 * warning on stderr (its pair starts from the prior) and replaced at the next save.
 * KGRAPH_PERFMODEL_ADAPTIVE=0 turns the whole thing off (kgraph_adaptive_enabled() == 0: callers use the
 * static prior).
 *
 * Thread-safe (one mutex); no StarPU dependency (kgraph_starpu.c glues it to StarPU).
 */
#ifndef KGRAPH_ADAPTIVE_H
#define KGRAPH_ADAPTIVE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KGRAPH_ADAPTIVE_PRIOR_SIGMA 1.04
#define KGRAPH_ADAPTIVE_OBS_SIGMA 0.2
#define KGRAPH_ADAPTIVE_NU0 4.0              /* pseudo-observations of OBS_SIGMA in the estimated s^2 */
#define KGRAPH_ADAPTIVE_CALIBRATE_WIDTH 10.0 /* default of KGRAPH_PERFMODEL_CALIBRATE_WIDTH */

/* 1 unless KGRAPH_PERFMODEL_ADAPTIVE=0. */
int kgraph_adaptive_enabled(void);

/* A series = one (codelet, arch) pair = one history file. Returns its id (>= 0; the same id for the same
 * names), loading its file if there is one, or -1 if the table of series is full. */
int kgraph_adaptive_series(const char *codelet, const char *arch);

/* Read the history files of `codelet` (every arch) now, e.g. at model init, so that the first query of each
 * (codelet, arch) does no file I/O: the files' contents are applied when the series is first used, exactly
 * as reading them then would (a file created afterwards by another process is not seen by this one). */
void kgraph_adaptive_preload(const char *codelet);
#define KGRAPH_ADAPTIVE_PRELOAD 1

/* The estimate (µs) for `key` of `series` if the key is known (observed now or in a persisted run, or asked
 * before with kgraph_adaptive_estimate): returns 1 and sets *us; 2 and *us = NAN while the key is being
 * calibrated (KGRAPH_PERFMODEL_CALIBRATE_WIDTH); 0 if unknown (ask the model, then call
 * kgraph_adaptive_estimate_sigma). This is the fast path: one hash lookup under the mutex; the posterior is
 * cached per key and recomputed only after a change of what it depends on (the key's series, or its arch for
 * an unobserved key of a series without observed keys). */
int kgraph_adaptive_lookup(int series, uint64_t key, double *us);

/* Record kgraph's prediction `prior_us` for `key` (kept if the key already has one) with its prior sd of
 * ln(time) `sigma` (NAN or <= 0: the global KGRAPH_PERFMODEL_PRIOR_SIGMA) and return the posterior estimate
 * (µs): the prior itself when there are no observations, NAN while the key is being calibrated. */
double kgraph_adaptive_estimate_sigma(int series, uint64_t key, double prior_us, double sigma);
/* kgraph_adaptive_estimate_sigma(series, key, prior_us, NAN). */
double kgraph_adaptive_estimate(int series, uint64_t key, double prior_us);

/* The prior sd of ln(time) from an 80% interval [lo, hi] (any unit): (ln hi - ln lo) / (2 * 1.2816); NAN
 * when lo/hi are NaN or not 0 < lo <= hi. */
double kgraph_adaptive_sigma_of_interval(double lo, double hi);

/* The prior sd of ln(time) a known key uses (its own or the global one); NAN if the key is unknown. */
double kgraph_adaptive_prior_sigma(int series, uint64_t key);

/* One observed execution time. `prior_us` is used only if the key has no prior yet (NAN: the first
 * observation becomes the prior). Returns 0, or -1 for a non-positive/non-finite time or a full table. */
int kgraph_adaptive_observe(int series, uint64_t key, double prior_us, double measured_us);

/* What is known about a key: observations, mean of ln(µs) of the observations, prior ln(µs), posterior
 * mean and standard deviation of ln(µs). Returns 0, or -1 if the key is unknown. */
int kgraph_adaptive_stats(int series, uint64_t key, long *n, double *mean_log, double *prior_log,
                          double *post_log, double *post_sigma);

/* Write every series with new observations to its file (atomically). Returns the number of files that
 * could not be written (each warned about on stderr). */
int kgraph_adaptive_save(void);

/* The history directory in use (KGRAPH_PERFMODEL_DIR or ~/.kgraph/perfmodel). */
const char *kgraph_adaptive_dir(void);

/* A key from the numbers that describe a launch (FNV-1a over their bytes). */
uint64_t kgraph_adaptive_key(const double *values, int n);

#ifdef __cplusplus
}
#endif
#endif
