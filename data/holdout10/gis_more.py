"""Holdout10 kernels, group gis, continued (written by hand; see docs/HOLDOUT10.md): D8 flow directions and slope from
an integer-metre digital elevation model on a 2-D NDRange (ESRI direction codes, voids and grid edges skipped, ties to
the first direction, flats and pits coded 0), one day of a stochastic SEIR agent model on a household / work /
community contact network (uint32 contact lists, Philox-2x32-10 counter-based draws, the day's counts and each ward's
new exposures by integer atomic_inc) and the shoelace area, centroid and perimeter of parcel rings of very different
vertex counts in fp64, a work-group per ring (``get_num_groups`` loop) with a __local tree of four sums. One of these
kernels uses atomics, on integers. Split from :mod:`.gis` to keep each module short; :mod:`.catalog` lists it after
that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f32, _f64, _spec, pow2, round_up

D8_NODATA = -9999.0  # d8_flowdir_slope_2d: a void cell
D8_CELL = 30.0  # d8_flowdir_slope_2d: metres a cell (SRTM one arc-second)

SEIR_P = (0.08, 0.02, 0.004)  # seir_day_contacts_atomic: daily transmission per household / work / community contact
SEIR_LATENT, SEIR_INFECTIOUS = 3, 7  # seir_day_contacts_atomic: days exposed, days infectious
SEIR_DAY, SEIR_SEED = 41, 0x5EED1234  # seir_day_contacts_atomic: the day simulated, the run's seed
SEIR_WARD = 1024  # seir_day_contacts_atomic: agents a ward (N // SEIR_WARD + 1 wards)


# --- D8 flow direction and slope, 2-D --------------------------------------------------------------------------------
def _upsample(rng, h, w, f, amp):
    """Gaussian noise on a grid f cells apart, bilinearly interpolated to h x w (float32)."""
    coarse = rng.normal(0.0, amp, (h // f + 2, w // f + 2)).astype(np.float32)
    yi, xi = np.arange(h) // f, np.arange(w) // f
    ty = ((np.arange(h) % f) / f).astype(np.float32)[:, None]
    tx = ((np.arange(w) % f) / f).astype(np.float32)[None, :]
    rows = coarse[yi] * (1 - ty) + coarse[yi + 1] * ty
    return rows[:, xi] * (1 - tx) + rows[:, xi + 1] * tx


def _inputs_d8(rng, sz):
    """Rolling terrain (a regional tilt and three octaves of interpolated noise) rounded to whole metres as in SRTM,
    so flats and ties are common; lakes levelled flat; voids (nodata) in blobs, about 2% of the cells."""
    w, h = sz["W"], sz["H"]
    z = _upsample(rng, h, w, 128, 120.0) + _upsample(rng, h, w, 32, 25.0) + _upsample(rng, h, w, 8, 4.0)
    z += (400.0 + 0.05 * np.arange(w, dtype=np.float32))[None, :] - 0.03 * np.arange(h, dtype=np.float32)[:, None]
    wet = _upsample(rng, h, w, 64, 1.0)
    z = np.where(wet > 1.6, np.float32(300.0), np.rint(z))
    z[_upsample(rng, h, w, 16, 1.0) > 1.4] = D8_NODATA
    return {"dem": z.astype(np.float32)}


def _ref_d8(inp, sz):
    """All cells at once, direction by direction, in float32 as the kernel compares; the slope in float64."""
    w, h = int(inp["width"]), int(inp["height"])
    nodata = np.float32(inp["nodata"])
    z = _f32(inp["dem"]).reshape(h, w)
    pad = np.full((h + 2, w + 2), nodata, dtype=np.float32)
    pad[1:-1, 1:-1] = z
    best = np.zeros((h, w), dtype=np.float32)
    code = np.zeros((h, w), dtype=np.int64)
    for k, (dx, dy) in enumerate(((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))):
        zn = pad[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
        drop = (z - zn).astype(np.float32)
        if k & 1:
            drop = (drop * np.float32(0.70710678)).astype(np.float32)
        upd = (zn != nodata) & (drop > best)
        best = np.where(upd, drop, best)
        code = np.where(upd, 1 << k, code)
    void = z == nodata
    slope = np.degrees(np.arctan(best.astype(np.float64) / float(inp["cellsize"])))
    return {"dir": np.where(void, 255, code), "slope": np.where(void, float(nodata), slope)}


def d8_flowdir_slope_2d() -> KernelSpec:
    return _spec(
        "d8_flowdir_slope_2d",
        idiom="D8 flow routing on an integer-metre DEM, 2-D: 8 neighbours from __constant offsets, edge and "
              "nodata skips, diagonal 1/sqrt2 drop, first-max ESRI code, atan slope",
        sizes={"W": pow2(8, 13), "H": [256, 1024, 4096]}, check={"W": 300, "H": 170},
        constraints=["W * H <= 2**22"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("cellsize", "scalar", "float32", str(D8_CELL)), Arg("nodata", "scalar", "float32", str(D8_NODATA)),
              Arg("dem", "buffer", "float32", "W * H"), Arg("dir", "buffer", "uint8", "W * H", "out"),
              Arg("slope", "buffer", "float32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_d8, make_inputs=_inputs_d8)


# --- one day of an SEIR agent model, Philox draws, atomic counts -----------------------------------------------------
def _philox(c0, c1, key):
    """Philox-2x32-10's first output word (uint64 arrays holding 32-bit values)."""
    c0, c1 = c0.astype(np.uint64), c1.astype(np.uint64)
    key = np.uint64(key)
    for _ in range(10):
        prod = c0 * np.uint64(0xD256D193)
        c0, c1 = (prod >> np.uint64(32)) ^ key ^ c1, prod & np.uint64(0xFFFFFFFF)
        key = (key + np.uint64(0x9E3779B9)) & np.uint64(0xFFFFFFFF)
    return c0


def _inputs_seir(rng, sz):
    """Agents in households of 1 .. 6 (consecutive ids, everyone in each other's list first), then D * N contacts
    in all: the rest owned by uniformly drawn agents, 60% work or school contacts within 1500 ids (the same ward,
    mostly; ids wrap around), 40% community contacts anywhere. Wards of SEIR_WARD agents with a prevalence of
    0 .. 12%: infectious 40% of it, exposed 30%, recovered 8% of agents plus twice the prevalence; the days in state
    drawn within range (susceptible ones up to 255, the saturation)."""
    n, deg = sz["N"], sz["D"]
    m = n * deg
    hsize = rng.integers(1, 7, n // 2 + 8)
    hstart = np.concatenate([[0], np.cumsum(hsize)])
    hstart = hstart[hstart < n]
    hsize = np.diff(np.concatenate([hstart, [n]]))
    hh_of = np.repeat(np.arange(hstart.size), hsize)
    hh = hsize[hh_of] - 1
    other = np.bincount(rng.integers(0, n, m - int(hh.sum()), dtype=np.int32), minlength=n)
    cnt = hh + other
    off = np.concatenate([[0], np.cumsum(cnt)])
    owner = np.repeat(np.arange(n, dtype=np.int32), cnt)
    rank = np.arange(m, dtype=np.int32) - off[:-1].astype(np.int32)[owner]
    home = rank < hh.astype(np.int32)[owner]
    tgt = np.empty(m, dtype=np.int32)
    kind = np.empty(m, dtype=np.uint8)
    at = np.flatnonzero(home)
    first = hstart.astype(np.int32)[hh_of[owner[at]]]
    tgt[at] = first + rank[at] + (rank[at] >= owner[at] - first)
    kind[at] = 0
    at = np.flatnonzero(~home)
    work = rng.random(at.size, dtype=np.float32) < 0.6
    near = (owner[at] + rng.integers(n - 1500, n + 1501, at.size, dtype=np.int32)) % n
    t = np.where(work, near, rng.integers(0, n, at.size, dtype=np.int32))
    tgt[at] = np.where(t == owner[at], (t + 1) % n, t)
    kind[at] = np.where(work, 1, 2)
    ward = np.arange(n) // SEIR_WARD
    prev = rng.uniform(0.0, 0.12, ward[-1] + 1)[ward]
    u = rng.random(n)
    state = np.select([u < 0.4 * prev, u < 0.7 * prev, u < 0.08 + 2.7 * prev], [2, 1, 3], 0)
    days = np.select([state == 1, state == 2, state == 3], [rng.integers(0, SEIR_LATENT, n),
                     rng.integers(0, SEIR_INFECTIOUS, n), rng.integers(0, 120, n)], rng.integers(0, 256, n))
    thr = np.array([int(p * 2**32) for p in SEIR_P], dtype=np.uint32)
    return {"contact_off": off, "contact_idx": tgt.astype(np.uint32), "contact_kind": kind,
            "p_kind": thr, "ward": ward, "state_in": state.astype(np.uint8), "days_in": days.astype(np.uint8)}


def _ref_seir(inp, sz):
    n = sz["N"]
    off = np.asarray(inp["contact_off"]).astype(np.int64)
    idx = np.asarray(inp["contact_idx"]).astype(np.int64)
    kind = np.asarray(inp["contact_kind"]).astype(np.int64)
    thr = np.asarray(inp["p_kind"]).astype(np.uint64)
    state = np.asarray(inp["state_in"]).astype(np.int64)
    days = np.asarray(inp["days_in"]).astype(np.int64)
    ward = np.asarray(inp["ward"]).astype(np.int64)
    owner = np.repeat(np.arange(n), np.diff(off))
    live = np.flatnonzero((state[owner] == 0) & (state[idx] == 2))
    key = (int(inp["seed"]) ^ ((int(inp["day"]) * 0x85EBCA6B) & 0xFFFFFFFF)) & 0xFFFFFFFF
    draw = _philox(owner[live], live, key)
    exposed = np.zeros(n, dtype=bool)
    exposed[owner[live][draw < thr[kind[live]]]] = True
    onset = (state == 1) & (days + 1 >= int(inp["latent_days"]))
    recover = (state == 2) & (days + 1 >= int(inp["infectious_days"]))
    new = np.select([exposed, onset, recover], [1, 2, 3], state)
    counts = np.array([exposed.sum(), onset.sum(), recover.sum()])
    return {"state_out": new, "days_out": np.where(new != state, 0, np.minimum(days + 1, 255)), "counts": counts,
            "ward_cases": np.bincount(ward[exposed], minlength=n // SEIR_WARD + 1)}


def seir_day_contacts_atomic() -> KernelSpec:
    return _spec(
        "seir_day_contacts_atomic",
        idiom="SEIR agent day: state switch, susceptible agents scan CSR uint contacts for infectious ones, "
              "Philox-2x32-10 draw vs per-setting uint threshold, atomic_inc day and ward counts",
        sizes={"N": pow2(13, 21, 2), "D": [8, 24]}, check={"N": 5000, "D": 12},
        constraints=["N * D <= 2**24"],
        args=[Arg("nagent", "scalar", "int32", "N"), Arg("day", "scalar", "uint32", str(SEIR_DAY)),
              Arg("seed", "scalar", "uint32", str(SEIR_SEED)),
              Arg("latent_days", "scalar", "int32", str(SEIR_LATENT)),
              Arg("infectious_days", "scalar", "int32", str(SEIR_INFECTIOUS)),
              Arg("contact_off", "buffer", "int32", "N + 1"), Arg("contact_idx", "buffer", "uint32", "N * D"),
              Arg("contact_kind", "buffer", "uint8", "N * D"), Arg("p_kind", "buffer", "uint32", "3"),
              Arg("ward", "buffer", "int32", "N"), Arg("state_in", "buffer", "uint8", "N"),
              Arg("days_in", "buffer", "uint8", "N"), Arg("state_out", "buffer", "uint8", "N", "out"),
              Arg("days_out", "buffer", "uint8", "N", "out"), Arg("counts", "buffer", "int32", "3", "out"),
              Arg("ward_cases", "buffer", "int32", f"N // {SEIR_WARD} + 1", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_seir, make_inputs=_inputs_seir)


# --- shoelace area, centroid and perimeter of rings, a group per ring, fp64 ------------------------------------------
def _inputs_shoelace(rng, sz):
    """P parcel rings, exactly V * P vertices: 1% collapsed to two vertices, the rest 3 + a lognormal share
    (a few rings of thousands of vertices); star-shaped about centres scattered over a UTM zone (eastings 300 ..
    700 km, northings 4000 .. 6000 km), radii 20 m .. 5 km growing with the vertex count, 15% clockwise (holes)."""
    p, v = sz["P"], sz["V"]
    flat = rng.random(p) < 0.01
    w = np.where(flat, 0.0, rng.lognormal(0.0, 1.2, p))
    nv = np.where(flat, 2, 3 + rng.multinomial(v * p - 2 * int(flat.sum()) - 3 * int((~flat).sum()), w / w.sum()))
    owner = np.repeat(np.arange(p), nv)
    u = np.sort(owner + rng.random(owner.size)) - owner
    cw = rng.random(p) < 0.15
    u = np.where(cw[owner], 1.0 - u, u)
    cx, cy = rng.uniform(3e5, 7e5, p), rng.uniform(4e6, 6e6, p)
    rad = np.minimum(20.0 * np.sqrt(nv) * rng.lognormal(0.0, 0.5, p), 5000.0)
    r = rad[owner] * rng.uniform(0.6, 1.0, owner.size)
    return {"ring_off": np.concatenate([[0], np.cumsum(nv)]), "x": cx[owner] + r * np.cos(2 * np.pi * u),
            "y": cy[owner] + r * np.sin(2 * np.pi * u)}


def _ref_shoelace(inp, sz):
    off = np.asarray(inp["ring_off"]).astype(np.int64)
    x, y = _f64(inp["x"]), _f64(inp["y"])
    nv = np.diff(off)
    ring = np.repeat(np.arange(nv.size), nv)
    x0, y0 = x[off[:-1]], y[off[:-1]]
    nxt = np.where(np.arange(x.size) + 1 == off[1:][ring], off[:-1][ring], np.arange(x.size) + 1)
    xa, ya = x - x0[ring], y - y0[ring]
    xb, yb = xa[nxt], ya[nxt]
    cr = xa * yb - xb * ya
    a2 = np.bincount(ring, cr, minlength=nv.size)
    sx = np.bincount(ring, (xa + xb) * cr, minlength=nv.size)
    sy = np.bincount(ring, (ya + yb) * cr, minlength=nv.size)
    per = np.bincount(ring, np.hypot(xb - xa, yb - ya), minlength=nv.size)
    safe = np.where(a2 != 0.0, a2, 1.0)
    return {"area": 0.5 * a2, "cx": np.where(a2 != 0.0, x0 + sx / (3.0 * safe), x0),
            "cy": np.where(a2 != 0.0, y0 + sy / (3.0 * safe), y0), "perim": per}


def shoelace_centroid_local_fp64() -> KernelSpec:
    return _spec(
        "shoelace_centroid_local_fp64", tol=FP64, precision="fp64",
        idiom="parcel shoelace in fp64, a group per ring (get_num_groups loop): strided edges relative to vertex 0, "
              "four-sum __local tree, signed area, zero-area centroid branch",
        sizes={"P": pow2(10, 16, 2), "V": [16, 64, 256]}, check={"P": 300, "V": 48},
        constraints=["P * V <= 2**22"],
        args=[Arg("nring", "scalar", "int32", "P"), Arg("ring_off", "buffer", "int32", "P + 1"),
              Arg("x", "buffer", "float64", "P * V"), Arg("y", "buffer", "float64", "P * V"),
              Arg("area", "buffer", "float64", "P", "out"), Arg("cx", "buffer", "float64", "P", "out"),
              Arg("cy", "buffer", "float64", "P", "out"), Arg("perim", "buffer", "float64", "P", "out"),
              Arg("red", "local", "float64", "4 * l0")],
        gsize=["256 * min(P, 1024)"], local=L1, reference=_ref_shoelace, make_inputs=_inputs_shoelace)


#: this group's builders, in the order of ``specs()``
BUILDERS = (d8_flowdir_slope_2d, seir_day_contacts_atomic, shoelace_centroid_local_fp64)
