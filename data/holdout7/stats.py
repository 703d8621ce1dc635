"""Holdout7 kernels, group stats (written by hand; see docs/HOLDOUT7.md): statistics, finance and insurance as
application programmers write them: a paired bootstrap of loss ratios on a 2-D (replicate, portfolio) NDRange with a
counter-based hash RNG in uint arithmetic, a local-linear-trend Kalman filter per time series in fp64 with missing
observations, historical-simulation VaR and expected shortfall with a private insertion-sorted tail per portfolio, a
weighted kernel density estimate with samples staged through __local memory, a limit order book uncrossing on uint32
prices and quantities, and chain-ladder reserving per cumulative loss triangle. No kernel of the group uses atomics."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f64, _spec, pow2, round_up

BOOT_SEED = 20240611  # bootstrap_ratio_hash_2d: the run's seed, mixed with each portfolio's key
KDE_TILE = 256  # kde_weighted_local: samples per __local tile (TILE in the source)
KDE_CUT = 6.0  # kde_weighted_local: contributions beyond this many bandwidths are skipped
MAX_TAIL = 128  # var_es_hist_insert: the private tail array's length


# --- paired bootstrap of loss ratios, 2-D (replicate, portfolio), counter-based hash RNG ----------------------------
def _mix32(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def _inputs_boot(rng, sz):
    """Per portfolio, premiums lognormal around 1000 (sigma 0.5); claims zero for ~85-97% of policies, otherwise
    lognormal (heavy tailed, sigma 1.2) around a portfolio-specific severity; random 32-bit portfolio keys."""
    n, g = sz["N"], sz["G"]
    prem = rng.lognormal(np.log(1000.0), 0.5, (g, n))
    freq = rng.uniform(0.03, 0.15, (g, 1))
    sev = rng.lognormal(np.log(3000.0), 1.2, (g, n)) * rng.uniform(0.5, 2.0, (g, 1))
    claims = np.where(rng.random((g, n)) < freq, sev, 0.0)
    return {"premium": prem, "claims": claims, "group_key": rng.integers(0, 2**32, g, dtype=np.uint64)}


def _ref_boot(inp, sz):
    n, r, g = sz["N"], sz["R"], sz["G"]
    prem, claims = _f64(inp["premium"]).reshape(g, n), _f64(inp["claims"]).reshape(g, n)
    keys = np.asarray(inp["group_key"]).astype(np.uint32)
    seed = np.uint32(int(inp["seed"]))
    with np.errstate(over="ignore"):
        rep = _mix32(np.arange(r, dtype=np.uint32) * np.uint32(0x9E3779B9) + np.uint32(1))
        k = np.arange(n, dtype=np.uint32) * np.uint32(0x85EBCA6B)
        out = np.empty((g, r))
        for i in range(g):
            base = _mix32(keys[i] ^ seed) ^ rep  # (r,)
            j = (_mix32(base[:, None] + k[None, :]) % np.uint32(n)).astype(np.int64)  # (r, n)
            sp, sc = prem[i][j].sum(axis=1), claims[i][j].sum(axis=1)
            out[i] = np.where(sp > 0, sc / np.where(sp > 0, sp, 1.0), 0.0)
    return {"ratio": out}


def bootstrap_ratio_hash_2d() -> KernelSpec:
    return _spec(
        "bootstrap_ratio_hash_2d", tol=SUMS,
        idiom="paired bootstrap of loss ratios, 2-D (replicate, portfolio): hash-RNG resample indices, two gathered sums",
        sizes={"R": pow2(6, 14, 2), "N": [256, 2048], "G": [8, 64]}, check={"R": 300, "N": 500, "G": 8},
        constraints=["R * N * G <= 2**26"],
        args=[Arg("nobs", "scalar", "int32", "N"), Arg("nrep", "scalar", "int32", "R"),
              Arg("ngroup", "scalar", "int32", "G"), Arg("seed", "scalar", "uint32", str(BOOT_SEED)),
              Arg("premium", "buffer", "float32", "G * N"), Arg("claims", "buffer", "float32", "G * N"),
              Arg("group_key", "buffer", "uint32", "G"), Arg("ratio", "buffer", "float32", "G * R", "out")],
        gsize=[round_up("R"), "G"], local=[[64, 4], [32, 8], [128, 1]], reference=_ref_boot,
        make_inputs=_inputs_boot)


# --- local linear trend Kalman filter per series, fp64, missing observations ------------------------------------------
def _inputs_kalman(rng, sz):
    """Per series a simulated local linear trend (level noise 1e-3 .. 1, slope noise 1e-6 .. 1e-2, observation noise
    0.01 .. 4, start level +-50); 5% of the series have gaps (runs of 5 .. 50 missing steps, NaN), 1% are almost all
    missing. Time-major layout."""
    s, t = sz["S"], sz["T"]
    ql = 10 ** rng.uniform(-3, 0, s)
    qs = 10 ** rng.uniform(-6, -2, s)
    ro = 10 ** rng.uniform(-2, np.log10(4.0), s)
    slope = np.cumsum(rng.normal(0.0, 1.0, (t, s)) * np.sqrt(qs), axis=0) + rng.normal(0.0, 0.05, s)
    level = np.cumsum(slope + rng.normal(0.0, 1.0, (t, s)) * np.sqrt(ql), axis=0) + rng.uniform(-50, 50, s)
    y = level + rng.normal(0.0, 1.0, (t, s)) * np.sqrt(ro)
    gappy = rng.random(s) < 0.05
    starts = rng.random((t, s)) < 0.01
    runs = np.zeros((t, s), dtype=bool)
    for L in (5, 20, 50):
        runs |= np.cumsum(starts, axis=0) - np.cumsum(np.roll(starts, L, axis=0) * (np.arange(t)[:, None] >= L),
                                                      axis=0) > 0
    missing = (runs & gappy) | ((rng.random(s) < 0.01) & (rng.random((t, s)) < 0.97))
    return {"y": np.where(missing, np.nan, y), "q_level": ql, "q_slope": qs, "r_obs": ro}


def _ref_kalman(inp, sz):
    s, t = sz["S"], sz["T"]
    y = _f64(inp["y"]).reshape(t, s)
    ql, qs, r = _f64(inp["q_level"]), _f64(inp["q_slope"]), _f64(inp["r_obs"])
    p0 = float(inp["p0"])
    lv, b = np.zeros(s), np.zeros(s)
    P00, P01, P11 = np.full(s, p0), np.zeros(s), np.full(s, p0)
    ll, seen = np.zeros(s), np.zeros(s, dtype=np.int64)
    level = np.empty((t, s))
    for k in range(t):
        a0, a1 = lv + b, b
        p00, p01, p11 = P00 + 2.0 * P01 + P11 + ql, P01 + P11, P11 + qs
        yt = y[k]
        obs = ~np.isnan(yt)
        v = np.where(obs, yt - a0, 0.0)
        f = p00 + r
        k0, k1 = p00 / f, p01 / f
        lv = np.where(obs, a0 + k0 * v, a0)
        b = np.where(obs, a1 + k1 * v, a1)
        P00 = np.where(obs, p00 - k0 * p00, p00)
        P01 = np.where(obs, p01 - k0 * p01, p01)
        P11 = np.where(obs, p11 - k1 * p01, p11)
        ll -= np.where(obs, 0.5 * (np.log(2 * np.pi) + np.log(f) + v * v / f), 0.0)
        seen += obs
        level[k] = lv
    return {"level": level, "loglik": ll, "nobs": seen}


def kalman_trend_fp64() -> KernelSpec:
    return _spec(
        "kalman_trend_fp64", precision="fp64", tol=(1e-8, 1e-9),
        idiom="local linear trend Kalman filter per series in fp64: 2x2 covariance recursion, NaN gaps, log-likelihood",
        sizes={"S": pow2(6, 14, 2), "T": [512, 4096, 32768]}, check={"S": 300, "T": 600},
        constraints=["S * T <= 2**23"],
        args=[Arg("nser", "scalar", "int32", "S"), Arg("nt", "scalar", "int32", "T"),
              Arg("p0", "scalar", "float64", "100.0"), Arg("y", "buffer", "float64", "T * S"),
              Arg("q_level", "buffer", "float64", "S"), Arg("q_slope", "buffer", "float64", "S"),
              Arg("r_obs", "buffer", "float64", "S"), Arg("level", "buffer", "float64", "T * S", "out"),
              Arg("loglik", "buffer", "float64", "S", "out"), Arg("nobs", "buffer", "int32", "S", "out")],
        gsize=[round_up("S")], local=L1, reference=_ref_kalman, make_inputs=_inputs_kalman)


# --- historical-simulation VaR / ES, private insertion-sorted tail per portfolio --------------------------------------
def _inputs_var(rng, sz):
    """Scenario returns: a one-factor market model with fat tails (Student-t, 4 dof, daily vol 0.5 .. 3%) and a few
    crash days; portfolio weights long-short, a fifth of the portfolios concentrated in three assets."""
    p, s, a = sz["P"], sz["S"], sz["A"]
    mkt = rng.standard_t(4, s) * 0.01
    mkt[rng.random(s) < 0.01] -= 0.06
    beta = rng.uniform(0.3, 1.5, a)
    scen = mkt[:, None] * beta + rng.standard_t(4, (s, a)) * rng.uniform(0.005, 0.03, a)
    w = rng.normal(0.3, 1.0, (p, a)) / a
    conc = rng.random(p) < 0.2
    mask = np.argsort(rng.random((p, a)), axis=1) < 3
    w = np.where(conc[:, None] & ~mask, 0.0, w)
    return {"weights": w, "scen": scen}


def _ref_var(inp, sz):
    p, s, a, k = sz["P"], sz["S"], sz["A"], int(inp["ntail"])
    loss = -(_f64(inp["weights"]).reshape(p, a) @ _f64(inp["scen"]).reshape(s, a).T)
    tail = -np.sort(-loss, axis=1)[:, :k]
    return {"var_out": tail[:, -1], "es_out": tail.mean(axis=1)}


def var_es_hist_insert() -> KernelSpec:
    return _spec(
        "var_es_hist_insert", tol=(1e-3, 1e-5),
        idiom="historical VaR/ES per portfolio: scenario dot products, private descending tail by insertion, tail mean",
        sizes={"P": pow2(8, 16, 2), "S": [1000, 4000], "A": [16, 64]}, check={"P": 300, "S": 1000, "A": 16},
        constraints=["P * S * A <= 2**28"],
        args=[Arg("nport", "scalar", "int32", "P"), Arg("nscen", "scalar", "int32", "S"),
              Arg("nasset", "scalar", "int32", "A"), Arg("ntail", "scalar", "int32", "S // 40"),
              Arg("weights", "buffer", "float32", "P * A"), Arg("scen", "buffer", "float32", "S * A"),
              Arg("var_out", "buffer", "float32", "P", "out"), Arg("es_out", "buffer", "float32", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_var, make_inputs=_inputs_var)


# --- weighted Gaussian KDE on a grid, samples tiled through __local ----------------------------------------------------
def _inputs_kde(rng, sz):
    """Log claim sizes: a mixture of attritional (normal at 7, sd 1), large (normal at 11, sd 0.7) and a spike of
    nominal-amount claims at exactly log(5000); exposure weights 0.1 .. 1 (a few policies of weight 3)."""
    n = sz["N"]
    kind = rng.random(n)
    x = np.where(kind < 0.8, rng.normal(7.0, 1.0, n), np.where(kind < 0.95, rng.normal(11.0, 0.7, n), np.log(5000.0)))
    w = np.where(rng.random(n) < 0.02, 3.0, rng.uniform(0.1, 1.0, n))
    return {"samples": x, "wts": w}


def _ref_kde(inp, sz):
    g = sz["G"]
    lo, dx, h = float(np.float32(inp["lo"])), float(np.float32(inp["dx"])), float(np.float32(inp["h"]))
    x, w = _f64(inp["samples"]), _f64(inp["wts"])
    grid = lo + dx * np.arange(g)
    dens = np.empty(g)
    for i in range(0, g, 2048):
        u = (grid[i:i + 2048, None] - x[None, :]) / h
        dens[i:i + 2048] = (np.where(np.abs(u) < KDE_CUT, w * np.exp(-0.5 * u * u), 0.0)).sum(axis=1)
    return {"density": dens / (h * np.sqrt(2 * np.pi) * x.size)}


def kde_weighted_local() -> KernelSpec:
    return _spec(
        "kde_weighted_local", tol=SUMS,
        idiom="weighted Gaussian KDE on a grid: sample tiles staged in __local with barriers, 6-bandwidth cutoff",
        sizes={"G": pow2(10, 18, 2), "N": [512, 4096, 32768]}, check={"G": 700, "N": 1000},
        constraints=["G * N <= 2**27"],
        args=[Arg("ngrid", "scalar", "int32", "G"), Arg("nsamp", "scalar", "int32", "N"),
              Arg("lo", "scalar", "float32", "2.0"), Arg("dx", "scalar", "float32", "14.0 / G"),
              Arg("h", "scalar", "float32", "0.9 * N ** -0.2"),
              Arg("samples", "buffer", "float32", "N"), Arg("wts", "buffer", "float32", "N"),
              Arg("density", "buffer", "float32", "G", "out"),
              Arg("xs", "local", "float32", str(KDE_TILE)), Arg("ws", "local", "float32", str(KDE_TILE))],
        gsize=[round_up("G")], local=L1, reference=_ref_kde, make_inputs=_inputs_kde)


# --- order book uncrossing on uint32 ticks and quantities --------------------------------------------------------------
def _inputs_book(rng, sz):
    """Per instrument, 1 .. maxlev levels a side (an empty side now and then) around a mid of 1000 .. 200000 ticks;
    bids descend and asks ascend by 1 .. 5 ticks; the best bid crosses the best ask by up to 8 ticks in about 60%
    of the books (an auction call), else the spread is 1 .. 4 ticks. Quantities 1 .. 5000 lots, in round lots of 100
    on a third of the levels."""
    n, m = sz["I"], sz["L"]
    mid = rng.integers(1000, 200000, n)
    cross = np.where(rng.random(n) < 0.6, rng.integers(0, 9, n), -rng.integers(1, 5, n))
    best_bid = mid + (cross + 1) // 2
    best_ask = mid - cross // 2
    bid_px = best_bid[:, None] - np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(rng.integers(1, 6, (n, m - 1)),
                                                                                      axis=1)], axis=1)
    ask_px = best_ask[:, None] + np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(rng.integers(1, 6, (n, m - 1)),
                                                                                      axis=1)], axis=1)
    qty = lambda: np.where(rng.random((n, m)) < 0.33, rng.integers(1, 51, (n, m)) * 100,  # noqa: E731
                           rng.integers(1, 5001, (n, m)))
    nbid = np.where(rng.random(n) < 0.03, 0, rng.integers(1, m + 1, n))
    nask = np.where(rng.random(n) < 0.03, 0, rng.integers(1, m + 1, n))
    return {"bid_px": bid_px, "bid_qty": qty(), "ask_px": ask_px, "ask_qty": qty(), "nbid": nbid, "nask": nask}


def _ref_book(inp, sz):
    n, m = sz["I"], sz["L"]
    bp, bqty = (np.asarray(inp[k]).astype(np.int64).reshape(n, m) for k in ("bid_px", "bid_qty"))
    ap, aqty = (np.asarray(inp[k]).astype(np.int64).reshape(n, m) for k in ("ask_px", "ask_qty"))
    nb_all, na_all = np.asarray(inp["nbid"]).astype(np.int64), np.asarray(inp["nask"]).astype(np.int64)
    vol, px, imb = np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n)
    for i in range(n):
        nb, na = nb_all[i], na_all[i]
        ib = ia = 0
        bq = bqty[i, 0] if nb > 0 else 0
        aq = aqty[i, 0] if na > 0 else 0
        while ib < nb and ia < na and bp[i, ib] >= ap[i, ia]:
            q = min(bq, aq)
            vol[i] += q
            px[i] = 0.5 * (bp[i, ib] + ap[i, ia])
            bq -= q
            aq -= q
            if bq == 0:
                ib += 1
                bq = bqty[i, ib] if ib < nb else 0
            if aq == 0:
                ia += 1
                aq = aqty[i, ia] if ia < na else 0
        db = (bq if ib < nb else 0) + bqty[i, ib + 1:nb].sum()
        da = (aq if ia < na else 0) + aqty[i, ia + 1:na].sum()
        imb[i] = (db - da) / (db + da) if db + da > 0 else 0.0
    return {"matched": vol, "clear_px": px, "imbalance": imb}


def book_uncross_u32() -> KernelSpec:
    return _spec(
        "book_uncross_u32",
        idiom="order book uncrossing per instrument: two-pointer match of uint32 bid/ask levels, resting depth imbalance",
        sizes={"I": pow2(10, 20, 2), "L": [16, 64]}, check={"I": 1500, "L": 16},
        constraints=["I * L <= 2**24"],
        args=[Arg("ninst", "scalar", "int32", "I"), Arg("maxlev", "scalar", "int32", "L"),
              Arg("bid_px", "buffer", "uint32", "I * L"), Arg("bid_qty", "buffer", "uint32", "I * L"),
              Arg("ask_px", "buffer", "uint32", "I * L"), Arg("ask_qty", "buffer", "uint32", "I * L"),
              Arg("nbid", "buffer", "int32", "I"), Arg("nask", "buffer", "int32", "I"),
              Arg("matched", "buffer", "uint32", "I", "out"), Arg("clear_px", "buffer", "float32", "I", "out"),
              Arg("imbalance", "buffer", "float32", "I", "out")],
        gsize=[round_up("I")], local=L1, reference=_ref_book, make_inputs=_inputs_book)


# --- chain-ladder reserving per loss triangle --------------------------------------------------------------------------
def _inputs_chain(rng, sz):
    """Cumulative paid triangles: per origin year an ultimate of exposure (lognormal) x loss ratio (0.4 .. 1.2), paid
    along a line-specific pattern (a gamma-like curve reaching 1 by the last development year, short or long
    tailed) with 5% multiplicative noise, kept non-decreasing; a tenth of the triangles are new lines with the first
    one to four origin years empty (zeros). Cells with i + j >= ndev (the future) hold -1."""
    m, n = sz["M"], sz["n"]
    speed = rng.uniform(0.3, 2.5, (m, 1, 1))
    j = np.arange(n)
    pattern = 1.0 - np.exp(-speed * (j + 1.0))
    pattern = pattern / pattern[..., -1:]
    ult = rng.lognormal(np.log(1e5), 1.0, (m, 1, 1)) * rng.uniform(0.8, 1.25, (m, n, 1)) * rng.uniform(0.4, 1.2,
                                                                                                     (m, n, 1))
    cum = np.maximum.accumulate(ult * pattern * rng.lognormal(0.0, 0.05, (m, n, n)), axis=2)
    new_line = (rng.random((m, 1, 1)) < 0.1) & (np.arange(n)[None, :, None] < rng.integers(1, 5, (m, 1, 1)))
    cum = np.where(new_line, 0.0, cum)
    known = (np.arange(n)[:, None] + j[None, :]) < n
    return {"tri": np.where(known, cum, -1.0)}


def _ref_chain(inp, sz):
    m, n = sz["M"], sz["n"]
    c = _f64(inp["tri"]).reshape(m, n, n)
    tail = float(np.float32(inp["tail"]))
    f = np.ones((m, n - 1))
    for j in range(n - 1):
        num, den = c[:, :n - 1 - j, j + 1].sum(axis=1), c[:, :n - 1 - j, j].sum(axis=1)
        f[:, j] = np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)
    latest = c[:, np.arange(n), n - 1 - np.arange(n)]  # (m, n)
    rest = np.stack([np.prod(f[:, n - 1 - i:], axis=1) for i in range(n)], axis=1)
    res = latest * rest * tail - latest
    return {"factors": f, "reserve": res, "total": res.sum(axis=1)}


def chain_ladder_reserve() -> KernelSpec:
    return _spec(
        "chain_ladder_reserve", tol=SUMS,
        idiom="chain-ladder reserving per loss triangle: column-sum development factors, products to ultimate, reserves",
        sizes={"M": pow2(8, 18, 2), "n": [10, 24]}, check={"M": 700, "n": 12},
        constraints=["M * n * n <= 2**26"],
        args=[Arg("ntri", "scalar", "int32", "M"), Arg("ndev", "scalar", "int32", "n"),
              Arg("tail", "scalar", "float32", "1.03"), Arg("tri", "buffer", "float32", "M * n * n"),
              Arg("factors", "buffer", "float32", "M * (n - 1)", "out"),
              Arg("reserve", "buffer", "float32", "M * n", "out"), Arg("total", "buffer", "float32", "M", "out")],
        gsize=[round_up("M")], local=L1, reference=_ref_chain, make_inputs=_inputs_chain)


#: this group's builders, in the order of ``specs()``
BUILDERS = (bootstrap_ratio_hash_2d, kalman_trend_fp64, var_es_hist_insert, kde_weighted_local,
            book_uncross_u32, chain_ladder_reserve)
