"""The adaptive perfmodel's update rule (issue 12 §5, version 3), the Python twin of kgraph_adaptive.c.

The C library (kgraph/app/runtime/starpu/kgraph_adaptive.c) is what StarPU runs; this module implements the
same rule for the replay simulator (benchmarks/starpu_replay.py) and for the tests that check both agree
(tests/test_adaptive_rule.py). Keys are (series, key); a series is one (codelet, arch) pair; ``arch`` groups
series of one worker architecture. All quantities are in ln(µs).

Model (log space, normal-normal with empirical-Bayes variances; docs/RUNTIME.md "Adaptive perfmodel"):
    ln t_i ~ N(theta, s^2),   theta ~ N(mu0, v)
- mu0 = ln(kgraph's prediction); s0 = the prediction's own sd (80% interval) or the global one.
- s^2, the observation variance, is estimated per series from the pooled within-key spread of its
  observations (Welford M2), shrunk to OBS_SIGMA^2 with NU0 pseudo-observations:
  s^2 = (NU0 OBS_SIGMA^2 + sum M2) / (NU0 + sum (n - 1)).
- v, the prior variance, is what the interval claims *or what the data show it to be, whichever is larger*
  (type-II maximum likelihood of ybar ~ N(mu0, v + s^2/n)): v = max(s0^2, (ybar - mu0)^2 - s^2/n). A prior
  the data contradict (a 40x miss claimed at +-30%) no longer drags the estimate for runs on end.
- An unobserved key borrows from its series' observed keys (other footprints of the codelet on the arch):
  its prior is shifted by their mean miss dbar = mean(ybar_j - mu0_j) and widened by their spread:
  mu = mu0 + dbar, v = s0^2 + mean((d_j - dbar)^2). With no observed key in its series but some on its arch,
  it keeps mu0 and is widened by the arch's excess miss tau_a^2 = mean(max(0, d_j^2 - s0_j^2)): kgraph's
  proven unreliability on this machine.
- Warm-up (off by default: the replay prefers it off): the first WARMUP observations of each series in a
  process are not folded in (the first launch
  of a kernel in a process is 4-120x its steady time on the H200 host: benchmarks/results/starpu_five_runs_h200).
- Calibrate when wide: an unobserved (n < CALIBRATE_RUNS) key answers NaN (StarPU's "not calibrated": dmda
  tries it) while its evidence-based sd (sqrt(v), the global s0 left out) exceeds ln(WIDTH) / (2 z_0.9).
Estimate = exp(posterior mean), posterior mean = (mu/v + n ybar/s^2) / (1/v + n/s^2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

Z90 = 1.2815515655446004
PRIOR_SIGMA, OBS_SIGMA, NU0, WARMUP, CALIBRATE_WIDTH, CALIBRATE_RUNS = 1.04, 0.2, 4.0, 0, 10.0, 1


def sigma_of_interval(lo: float, hi: float) -> float:
    """The prior sd of ln time from an 80% interval [lo, hi]; NaN unless 0 < lo <= hi < inf."""
    if not (lo > 0) or not (hi >= lo) or not math.isfinite(hi):
        return math.nan
    return (math.log(hi) - math.log(lo)) / (2 * Z90)


@dataclass
class Entry:
    prior_log: float = math.nan
    sigma: float = math.nan  # NaN: the global prior sigma
    n: int = 0
    mean_log: float = 0.0
    m2: float = 0.0


@dataclass
class AdaptiveRule:
    prior_sigma: float = PRIOR_SIGMA
    obs_sigma: float = OBS_SIGMA
    nu0: float = NU0
    warmup: int = WARMUP
    calibrate_width: float = CALIBRATE_WIDTH  # 0: off
    calibrate_runs: int = CALIBRATE_RUNS
    entries: dict = field(default_factory=dict)  # (series, key) -> Entry
    arch_of: dict = field(default_factory=dict)  # series -> arch
    seen: dict = field(default_factory=dict)     # series -> observations received in this process

    # ---------------------------------------------------------------- the rule
    def s0(self, e: Entry) -> float:
        return self.prior_sigma if math.isnan(e.sigma) else e.sigma

    def _observed(self, pred):
        return [e for (s, _), e in self.entries.items() if pred(s) and e.n > 0 and not math.isnan(e.prior_log)]

    def obs_var(self, series) -> float:
        m2 = dof = 0.0
        for (s, _), e in self.entries.items():
            if s == series and e.n > 0:
                m2 += e.m2
                dof += e.n - 1
        return (self.nu0 * self.obs_sigma ** 2 + m2) / (self.nu0 + dof)

    def prior(self, series, e: Entry) -> tuple[float, float, float]:
        """(mu, v, evidence v) of an entry: its prior mean and variance as the rule uses them."""
        s0sq = self.s0(e) ** 2
        if e.n > 0:
            d = e.mean_log - e.prior_log
            v = max(s0sq, d * d - self.obs_var(series) / e.n)
            return e.prior_log, v, v
        own = self._observed(lambda s: s == series)
        if own:
            ds = [x.mean_log - x.prior_log for x in own]
            dbar = sum(ds) / len(ds)
            extra = sum((d - dbar) ** 2 for d in ds) / len(ds)
            return e.prior_log + dbar, s0sq + extra, (0.0 if math.isnan(e.sigma) else s0sq) + extra
        arch = self._observed(lambda s: self.arch_of.get(s) == self.arch_of.get(series))
        extra = (sum(max(0.0, (x.mean_log - x.prior_log) ** 2 - self.s0(x) ** 2) for x in arch) / len(arch)
                 if arch else 0.0)
        return e.prior_log, s0sq + extra, (0.0 if math.isnan(e.sigma) else s0sq) + extra

    def posterior(self, series, key) -> tuple[float, float]:
        """(posterior mean, posterior sd) of ln(µs)."""
        e = self.entries[(series, key)]
        s2 = self.obs_var(series)
        if math.isnan(e.prior_log):
            return (e.mean_log, math.sqrt(s2 / e.n)) if e.n else (math.nan, math.nan)
        mu, v, _ = self.prior(series, e)
        prec = 1 / v + e.n / s2
        return (mu / v + e.n * e.mean_log / s2) / prec, prec ** -0.5

    def calibrating(self, series, key) -> bool:
        e = self.entries[(series, key)]
        if not (self.calibrate_width > 1) or e.n >= self.calibrate_runs or math.isnan(e.prior_log):
            return False
        return self.prior(series, e)[2] > (math.log(self.calibrate_width) / (2 * Z90)) ** 2

    # ---------------------------------------------------------------- the API of kgraph_adaptive.c
    def series(self, series, arch) -> None:
        self.arch_of[series] = arch

    def estimate(self, series, key, prior_us: float, sigma: float = math.nan) -> float:
        """kgraph_adaptive_estimate_sigma: the estimate (µs), NaN while calibrating."""
        if not (prior_us > 0) or not math.isfinite(prior_us):
            return prior_us
        e = self.entries.setdefault((series, key), Entry())
        if math.isnan(e.prior_log):
            e.prior_log = math.log(prior_us)
            if math.isnan(e.sigma) and sigma > 0 and math.isfinite(sigma):
                e.sigma = sigma
        if self.calibrating(series, key):
            return math.nan
        return prior_us if e.n == 0 and self.prior(series, e)[0] == e.prior_log else math.exp(self.posterior(series, key)[0])

    def observe(self, series, key, measured_us: float) -> bool:
        """kgraph_adaptive_observe: False for a bad time; a warm-up observation is received, not folded in."""
        if not (measured_us > 0) or not math.isfinite(measured_us):
            return False
        self.seen[series] = self.seen.get(series, 0) + 1
        if self.seen[series] <= self.warmup:
            return True
        e = self.entries.setdefault((series, key), Entry())
        y = math.log(measured_us)
        e.n += 1
        delta = y - e.mean_log
        e.mean_log += delta / e.n
        e.m2 += delta * (y - e.mean_log)
        return True
