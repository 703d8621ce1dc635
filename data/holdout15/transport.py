"""Holdout15 kernels, group transport (written by hand; see docs/HOLDOUT15.md): two microscopic traffic models.
One parallel step of the Nagel-Schreckenberg cellular automaton on many single-lane ring roads of uint8 cells
(0 empty, else 1 + speed) on a 2-D (cell, road) NDRange, every cell looking back for the nearest car that can
reach it, accelerating it, braking it to its free cells ahead and slowing it at random by a counter-based hash of
(seed, step, cell) so that every cell agrees on the draw, and taking the car if it lands there; and one step of the
intelligent driver model in fp64 on many ring lanes, a work-item per rank of the position-sorted order finding its
lane by binary search over the lane offsets, gathering itself and its leader (the first vehicle around the ring
for the last one) through the order, evaluating the IDM acceleration with per-class parameters and moving
ballistically with a stop inside the step. Neither uses atomics or __local memory; the group's other two kernels
are in :mod:`.transport_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, round_up

NS_VMAX = 5  # nasch_ring_roads_u8_2d: top speed (cells a step)
NS_P = 0.25  # nasch_ring_roads_u8_2d: random slowdown probability
NS_SEED, NS_STEP = 0x5EED1234, 77  # nasch_ring_roads_u8_2d: hash seed and step number

# idm_ring_lanes_sorted_fp64: per class v0 (m/s), T (s), a (m/s^2), b (m/s^2), s0 (m), length (m): car, truck, bus
IDM_CLASSES = np.array([[33.3, 1.2, 1.5, 2.0, 2.0, 4.5],
                        [25.0, 1.8, 0.7, 1.5, 3.0, 16.5],
                        [27.0, 1.5, 1.0, 1.5, 2.5, 12.0]])
IDM_DT = 0.5  # idm_ring_lanes_sorted_fp64: time step (s)
IDM_SPACING = 40.0  # idm_ring_lanes_sorted_fp64: ring length per vehicle of a lane's mean count (m)
IDM_MINSP = 20.0  # idm_ring_lanes_sorted_fp64: smallest initial distance between consecutive vehicles (m)


# --- Nagel-Schreckenberg step on ring roads, uint8 cells, 2-D (cell, road) ---------------------------------------
def _hash(seed, step, key):
    """The kernel's mix_hash, in uint64 with the products cut to 32 bits."""
    m = np.uint64(0xFFFFFFFF)
    h = ((np.asarray(key, dtype=np.uint64) * np.uint64(0x9E3779B9)) & m) ^ np.uint64(seed)
    h ^= np.uint64((step * 0x85EBCA6B) & 0xFFFFFFFF)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x7FEB352D)) & m
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(0x846CA68B)) & m
    h ^= h >> np.uint64(16)
    return h


def _inputs_nasch(rng, sz):
    """R rings of X cells, each with its own density uniform 0.03 .. 0.6; speeds uniform 0 .. vmax."""
    x, r = sz["X"], sz["R"]
    rho = rng.uniform(0.03, 0.6, r).astype(np.float32)
    occ = rng.random((r, x), dtype=np.float32) < rho[:, None]
    speed = rng.integers(1, NS_VMAX + 2, (r, x), dtype=np.uint8)
    return {"road": np.where(occ, speed, np.uint8(0)).reshape(-1)}


def _ref_nasch(inp, sz):
    """Car by car: the gap to the next car of the ring (cyclic), then the four NaSch rules."""
    x, r, vmax = int(inp["ncell"]), int(inp["nroad"]), int(inp["vmax"])
    p, seed, step = int(inp["p_slow"]), int(inp["seed"]), int(inp["step"])
    road = np.asarray(inp["road"]).astype(np.int64)[:x * r].reshape(r, x)
    rr, cc = np.nonzero(road)  # row-major: sorted by road, then cell
    out = np.zeros((r, x), dtype=np.int64)
    if rr.size:
        first = np.searchsorted(rr, np.arange(r))
        nxt = np.arange(1, rr.size + 1)
        last = np.r_[rr[1:] != rr[:-1], True]
        nxt[last] = first[rr[last]]
        gap = (cc[nxt] - cc - 1) % x
        gap[nxt == np.arange(rr.size)] = x - 1  # a lone car sees the whole ring
        v = np.minimum(np.minimum(road[rr, cc], vmax), gap)
        slow = (v > 0) & (_hash(seed, step, rr * x + cc) < np.uint64(p))
        v = v - slow
        out[rr, (cc + v) % x] = v + 1
    return {"road_next": out.reshape(-1)}


def nasch_ring_roads_u8_2d() -> KernelSpec:
    return _spec(
        "nasch_ring_roads_u8_2d",
        idiom="Nagel-Schreckenberg CA step, 2-D (cell, ring road) on uint8 cells: backward scan for the nearest "
              "car, forward free-cell scan, counter-hash random slowdown, take the car if it lands on the cell",
        sizes={"X": [1000, 6000, 36000, 216000, 1296000], "R": [16, 96, 576]}, check={"X": 97, "R": 7},
        constraints=["X * R <= 2**25"],
        args=[Arg("ncell", "scalar", "int32", "X"), Arg("nroad", "scalar", "int32", "R"),
              Arg("vmax", "scalar", "int32", str(NS_VMAX)),
              Arg("p_slow", "scalar", "uint32", str(int(NS_P * 2**32))),
              Arg("seed", "scalar", "uint32", str(NS_SEED)), Arg("step", "scalar", "uint32", str(NS_STEP)),
              Arg("road", "buffer", "uint8", "X * R"), Arg("road_next", "buffer", "uint8", "X * R", "out")],
        gsize=[round_up("X", 32), round_up("R", 16)], local=L2, reference=_ref_nasch, make_inputs=_inputs_nasch)


# --- intelligent driver model on ring lanes through a sorted order, fp64 ------------------------------------------
def _inputs_idm(rng, sz):
    """N // M lanes with M vehicles on average (multinomial counts), the lane ring M * IDM_SPACING long;
    positions sorted, at least IDM_MINSP apart; vehicle ids a random permutation of the ranks; classes
    80 / 12 / 8 %; speeds uniform 0 .. 30 m/s."""
    n, m = sz["N"], sz["M"]
    nl = n // m
    counts = rng.multinomial(n, np.full(nl, 1.0 / nl))
    start = np.zeros(nl + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    lane = np.repeat(np.arange(nl), counts)
    ring = m * IDM_SPACING
    u = np.sort(lane + rng.random(n) * 0.999)  # sorted within each lane
    rank = np.arange(n) - start[lane]
    free = np.maximum(ring - counts * IDM_MINSP, 0.0)[lane]
    pos_rank = (u - lane) / 0.999 * free + rank * IDM_MINSP
    order = rng.permutation(n)
    pos = np.empty(n)
    pos[order] = pos_rank
    cls = rng.choice(3, n, p=[0.8, 0.12, 0.08])
    return {"lane_start": start, "order": order, "vclass": cls, "class_par": IDM_CLASSES.reshape(-1),
            "pos": pos, "vel": rng.uniform(0.0, 30.0, n)}


def _ref_idm(inp, sz):
    n, nl = int(inp["nveh"]), int(inp["nlane"])
    ring, dt, delta = float(inp["ring_len"]), float(inp["dt"]), float(inp["delta"])
    start = np.asarray(inp["lane_start"]).astype(np.int64)
    order = np.asarray(inp["order"]).astype(np.int64)
    cls = np.asarray(inp["vclass"]).astype(np.int64)
    par = _f64(inp["class_par"]).reshape(-1, 6)
    pos, vel = _f64(inp["pos"]), _f64(inp["vel"])
    k = np.arange(n)
    lane = np.searchsorted(start[1:nl + 1], k, side="right")
    last = k + 1 >= start[lane + 1]
    ld = np.where(last, order[start[lane]], order[np.minimum(k + 1, n - 1)])
    me = order
    xl = pos[ld] + np.where(last, ring, 0.0)
    v0, tt, am, bc, s0 = (par[cls[me], j] for j in range(5))
    x, v = pos[me], vel[me]
    gap = np.maximum(xl - x - par[cls[ld], 5], 0.1)
    sstar = s0 + np.maximum(0.0, v * tt + v * (v - vel[ld]) / (2.0 * np.sqrt(am * bc)))
    acc = am * (1.0 - (v / v0) ** delta - (sstar / gap) ** 2)
    vn = v + acc * dt
    stop = vn < 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        xn = np.where(stop, x - v * v / (2.0 * acc), x + v * dt + 0.5 * acc * dt * dt)
    xn = np.where(xn >= ring, xn - ring, xn)
    out = {"pos_out": np.empty(n), "vel_out": np.empty(n), "acc_out": np.empty(n)}
    out["pos_out"][me], out["vel_out"][me], out["acc_out"][me] = xn, np.maximum(vn, 0.0), acc
    return out


def idm_ring_lanes_sorted_fp64() -> KernelSpec:
    return _spec(
        "idm_ring_lanes_sorted_fp64", tol=FP64, precision="fp64",
        idiom="intelligent driver model step in fp64, an item per sorted rank: binary search of the lane offsets, "
              "leader through the order (ring wrap), per-class parameters, pow / sqrt IDM law, ballistic stop",
        sizes={"N": [2048, 16384, 131072, 524288, 2097152], "M": [64, 1024]}, check={"N": 700, "M": 40},
        args=[Arg("nveh", "scalar", "int32", "N"), Arg("nlane", "scalar", "int32", "N // M"),
              Arg("ring_len", "scalar", "float64", f"M * {IDM_SPACING}"), Arg("dt", "scalar", "float64", str(IDM_DT)),
              Arg("delta", "scalar", "float64", "4.0"),
              Arg("lane_start", "buffer", "int32", "N // M + 1"), Arg("order", "buffer", "int32", "N"),
              Arg("vclass", "buffer", "int32", "N"), Arg("class_par", "buffer", "float64", str(IDM_CLASSES.size)),
              Arg("pos", "buffer", "float64", "N"), Arg("vel", "buffer", "float64", "N"),
              Arg("pos_out", "buffer", "float64", "N", "out"), Arg("vel_out", "buffer", "float64", "N", "out"),
              Arg("acc_out", "buffer", "float64", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_idm, make_inputs=_inputs_idm)


#: this group's builders, in the order of ``specs()``
BUILDERS = (nasch_ring_roads_u8_2d, idm_ring_lanes_sorted_fp64)
