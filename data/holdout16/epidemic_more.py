"""Holdout16 kernels, group epidemic, continued (written by hand; see docs/HOLDOUT16.md): the effective
reproduction number by Cori's method, a work-item per region walking a day-major int32 table of daily cases in
order, each day forming the total infectiousness from a serial-interval loop of runtime length, keeping the
window's case total as an exact integer running sum and its infectiousness values in a private ring, and writing
the Gamma posterior's mean and a Wilson-Hilferty 97.5 % quantile only where the window is complete and holds
enough cases; and one step of a stochastic wildfire cellular automaton on a 2-D NDRange over uint8 cell states,
burning cells counting down, unburnt cells drier than the moisture of extinction taking a wind-weighted ignition
probability from every burning neighbour of eight and one hashed uniform, new ignitions counted per fire-management
block by atomic_inc into uint32 counters. Split from :mod:`.epidemic` to keep each module short; :mod:`.catalog`
lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, round_up

MIN_CASES = 12  # cori_rt_window_regions: Cori et al.'s rule of thumb for a usable window
A_PRIOR, B_PRIOR = 1.0, 5.0  # Gamma prior on R: shape and scale (mean 5, wide)

SEED, STEP, BURN = 987654321, 42, 4  # wildfire_ca_wind_blocks_2d: seed, step number, steps a cell burns
FIRE = {"wind_x": 0.8, "wind_y": -0.45, "c_wind": 1.3, "p0": 0.35, "m_ext": 0.3}

M32 = 0xFFFFFFFF


# --- Cori R_t over sliding windows, a region per work-item ---------------------------------------------------------
def _si_weights(smax):
    """Discretised gamma serial interval (mean ~5 days, sd ~3), w_1 .. w_smax normalised."""
    s = np.arange(1, smax + 1, dtype=np.float64)
    w = s ** 1.8 * np.exp(-s / 1.6)
    return w / w.sum()


def _inputs_cori(rng, sz):
    """Epidemic curves per region: log incidence a random walk with drift changes (waves rising and dying out)
    from a region-specific level (a few to thousands of cases a day), Poisson counts, a tenth of the regions
    reporting nothing for long stretches."""
    nreg, nd, smax = sz["G"], sz["T"], sz["S"]
    level = rng.uniform(-1.0, 7.0, nreg)
    drift = rng.normal(0.0, 0.05, (nd // 30 + 1, nreg)).repeat(30, axis=0)[:nd]
    logi = level + np.cumsum(drift + np.float32(0.03) * rng.standard_normal((nd, nreg), dtype=np.float32), axis=0)
    lam = np.exp(np.minimum(logi, 9.0))
    quiet = rng.random(nreg) < 0.1
    lam[: nd // 2, quiet] = 0.0
    cases = rng.poisson(lam).astype(np.int32)
    return {"cases": cases.reshape(-1), "si_w": _si_weights(smax).astype(np.float32)}


def _ref_cori(inp, sz):
    nreg, nd, smax, win = (int(inp[k]) for k in ("nreg", "ndays", "smax", "win"))
    mc, a, b = int(inp["min_cases"]), float(np.float32(inp["a_prior"])), float(np.float32(inp["b_prior"]))
    inc = _f64(inp["cases"])[:nd * nreg].reshape(nd, nreg)
    w = _f64(inp["si_w"])[:smax]
    lam = np.zeros_like(inc)
    for s in range(1, smax + 1):
        lam[s:] += w[s - 1] * inc[:-s] if s < nd else 0.0
    ci = np.concatenate([np.zeros((1, nreg)), np.cumsum(inc, axis=0)])
    cl = np.concatenate([np.zeros((1, nreg)), np.cumsum(lam, axis=0)])
    t = np.arange(nd)[:, None]
    lo = np.maximum(t - win + 1, 0)
    sum_i = np.take_along_axis(ci, np.broadcast_to(t + 1, inc.shape), 0) - \
        np.take_along_axis(ci, np.broadcast_to(lo, inc.shape), 0)
    sum_l = np.take_along_axis(cl, np.broadcast_to(t + 1, inc.shape), 0) - \
        np.take_along_axis(cl, np.broadcast_to(lo, inc.shape), 0)
    ok = (t >= win - 1) & (sum_i >= mc)
    shape = a + sum_i
    mean = shape / (1.0 / b + sum_l)
    v = 1.0 / (9.0 * shape)
    hi = mean * (1.0 - v + 1.959964 * np.sqrt(v)) ** 3
    return {"rt_mean": np.where(ok, mean, 0.0).reshape(-1), "rt_hi": np.where(ok, hi, 0.0).reshape(-1)}


def cori_rt_window_regions() -> KernelSpec:
    return _spec(
        "cori_rt_window_regions", tol=SUMS,
        idiom="Cori R_t per region over day-major int32 cases: serial-interval convolution loop each day, exact int "
              "running window sum and a private ring of infectiousness, Gamma posterior mean and Wilson-Hilferty "
              "97.5 % quantile where the window holds enough cases",
        sizes={"G": [2048, 16384, 131072], "T": [100, 360], "S": [20], "W": [7, 21]},
        check={"G": 300, "T": 90, "S": 20, "W": 7}, constraints=["G * T <= 2**24"],
        args=[Arg("nreg", "scalar", "int32", "G"), Arg("ndays", "scalar", "int32", "T"),
              Arg("smax", "scalar", "int32", "S"), Arg("win", "scalar", "int32", "W"),
              Arg("min_cases", "scalar", "int32", str(MIN_CASES)),
              Arg("a_prior", "scalar", "float32", str(A_PRIOR)), Arg("b_prior", "scalar", "float32", str(B_PRIOR)),
              Arg("cases", "buffer", "int32", "T * G"), Arg("si_w", "buffer", "float32", "S"),
              Arg("rt_mean", "buffer", "float32", "T * G", "out"), Arg("rt_hi", "buffer", "float32", "T * G", "out")],
        gsize=[round_up("G")], local=L1, reference=_ref_cori, make_inputs=_inputs_cori)


# --- wildfire cellular automaton with wind and fuel moisture, per-block atomic counts ------------------------------
def _cell_hash(seed, step, idx):
    h = (np.asarray(idx, dtype=np.uint64) * 0x9E3779B1 + seed) & M32
    h ^= (step * 0x85EBCA77) & M32
    h ^= h >> 16
    h = (h * 0x7FEB352D) & M32
    h ^= h >> 15
    h = (h * 0x846CA68B) & M32
    h ^= h >> 16
    return h


def _inputs_fire(rng, sz):
    """A fuel map with roads (no-fuel lines every ~300 cells) and rocky patches, fuel moisture 0.05 .. 0.4 varying
    smoothly (wet valleys beyond the extinction moisture); a few dozen fires burning as rings of random radius
    around burnt-out cores, their fronts at random countdown."""
    n = sz["N"]
    ax = np.arange(n, dtype=np.float32)
    xx, yy = ax[None, :], ax[:, None]
    st = np.ones((n, n), np.uint8)
    st[np.arange(n) % 301 == 150, :] = 0
    st[:, np.arange(n) % 277 == 40] = 0
    st[rng.random((n, n), dtype=np.float32) < 0.03] = 0
    moist = rng.uniform(-0.03, 0.03, (n, n)).astype(np.float32)
    moist += np.float32(0.17) + np.float32(0.09) * np.sin(xx * 0.021 + 1.0) * np.cos(yy * 0.017)
    moist += np.float32(0.08) * (np.sin(xx * 0.006) * np.cos(yy * 0.006) + np.cos(xx * 0.006) * np.sin(yy * 0.006))
    nfire = max(3, n // 48)
    cx, cy = rng.uniform(0, n, nfire), rng.uniform(0, n, nfire)
    rad = rng.uniform(3.0, max(6.0, n / 40.0), nfire)
    for fx, fy, rr in zip(cx, cy, rad):
        y0, y1 = max(int(fy - rr - 3), 0), min(int(fy + rr + 3), n)
        x0, x1 = max(int(fx - rr - 3), 0), min(int(fx + rr + 3), n)
        d = np.hypot(xx[:, x0:x1] - fx, yy[y0:y1] - fy)
        sub = st[y0:y1, x0:x1]
        fuel = sub == 1
        sub[fuel & (d < rr - 2.0)] = 2
        front = fuel & (d >= rr - 2.0) & (d < rr)
        sub[front] = rng.integers(3, 3 + BURN, int(front.sum()))
    return {"state_in": st.reshape(-1), "moist": moist.reshape(-1)}


def _ref_fire(inp, sz):
    nx, ny, blk, burn = (int(inp[k]) for k in ("nx", "ny", "block", "burn_steps"))
    c = {k: float(np.float32(inp[k])) for k in FIRE}
    st = np.asarray(inp["state_in"])[:nx * ny].reshape(ny, nx).astype(np.int64)
    mo = _f64(inp["moist"])[:nx * ny].reshape(ny, nx)
    burning = np.pad(st >= 3, 1)
    base = c["p0"] * (1.0 - mo / c["m_ext"])
    q = np.ones((ny, nx))
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            diag = dx != 0 and dy != 0
            inv = 0.70710678 if diag else 1.0
            along = -(dx * c["wind_x"] + dy * c["wind_y"]) * inv
            p = np.minimum(base * np.exp(c["c_wind"] * along) * (0.83 if diag else 1.0), 1.0)
            nb = burning[1 + dy:1 + dy + ny, 1 + dx:1 + dx + nx]
            q = np.where(nb, q * (1.0 - p), q)
    g = np.arange(nx * ny).reshape(ny, nx)
    u = (_cell_hash(int(inp["seed"]), int(inp["step"]), g) >> 8).astype(np.float64) / 16777216.0
    ign = (st == 1) & (mo < c["m_ext"]) & (q < 1.0) & (u >= q)
    out = np.where(st >= 3, np.where(st == 3, 2, st - 1), st)
    out = np.where(ign, 2 + burn, out)
    nbx, nby = (nx + blk - 1) // blk, (ny + blk - 1) // blk
    yy, xx = np.nonzero(ign)
    counts = np.bincount((yy // blk) * nbx + xx // blk, minlength=nbx * nby)
    return {"state_out": out.reshape(-1).astype(np.uint8), "block_new": counts.astype(np.uint32)}


def wildfire_ca_wind_blocks_2d() -> KernelSpec:
    return _spec(
        "wildfire_ca_wind_blocks_2d", tol=SUMS,
        idiom="stochastic wildfire CA step on uint8 states, 2-D: countdown of burning cells, moisture cut-off, "
              "8-neighbour scan with wind-weighted exp ignition probabilities, one hashed uniform, atomic_inc of "
              "new ignitions per uint32 block counter",
        sizes={"N": [256, 512, 1024, 1536, 2048, 3072, 4096, 6144], "B": [16, 64]}, check={"N": 150, "B": 16},
        args=[Arg("nx", "scalar", "int32", "N"), Arg("ny", "scalar", "int32", "N"),
              Arg("seed", "scalar", "uint32", str(SEED)), Arg("step", "scalar", "int32", str(STEP)),
              Arg("burn_steps", "scalar", "int32", str(BURN)), Arg("block", "scalar", "int32", "B"),
              *(Arg(k, "scalar", "float32", str(v)) for k, v in FIRE.items()),
              Arg("state_in", "buffer", "uint8", "N * N"), Arg("moist", "buffer", "float32", "N * N"),
              Arg("state_out", "buffer", "uint8", "N * N", "out"),
              Arg("block_new", "buffer", "uint32", "((N + B - 1) // B) * ((N + B - 1) // B)", "out")],
        gsize=[round_up("N", 32), round_up("N", 16)], local=L2, reference=_ref_fire, make_inputs=_inputs_fire)


#: this group's builders, in the order of ``specs()``
BUILDERS = (cori_rt_window_regions, wildfire_ca_wind_blocks_2d)
