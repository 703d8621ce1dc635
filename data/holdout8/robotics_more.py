"""Holdout8 kernels, group robotics, continued (written by hand; see docs/HOLDOUT8.md): one Godunov sweep of a
navigation cost field (eikonal) on a 2-D NDRange with the tile and its halo staged in __local memory and a count of
improved cells, blob ("47-tile") autotiling of a uint32 tile map on a 2-D NDRange, and MPPI rollouts of a kinematic
bicycle through an inflated cost map with a crash exit. One kernel uses atomics (the eikonal sweep's improved-cell
count: integer atomic_inc in __local and one atomic_add per work-group), so no result depends on the order in which
work-items run. Split from :mod:`.robotics` (whose bilinear lookup it uses) to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np
from scipy import ndimage

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up
from .robotics import _bilinear

UNREACHED = 1.0e10  # eikonal_godunov_tile_local: arrival time of cells the front has not reached (in the source)


def _smooth_noise(rng, h: int, w: int, cell: int) -> np.ndarray:
    """Value noise in [0, 1] (float32): a coarse random grid, one value every ``cell`` cells, interpolated
    bilinearly (along rows, then down the columns a block of ``cell`` rows at a time)."""
    gh = h // cell + 2
    coarse = rng.random((gh, w // cell + 2), dtype=np.float32)
    x = np.arange(w, dtype=np.float32) / np.float32(cell)
    ix = x.astype(np.int64)
    fx = x - ix.astype(np.float32)
    rows = coarse[:, ix] * (np.float32(1.0) - fx) + coarse[:, ix + 1] * fx  # (gh, w)
    t = (np.arange(cell, dtype=np.float32) / np.float32(cell))[None, :, None]
    out = rows[:-1, None, :] * (np.float32(1.0) - t)
    out += rows[1:, None, :] * t
    return out.reshape(-1, w)[:h]


# --- eikonal cost-field sweep, tile + halo in __local, improved-cell count --------------------------------------------
def _inputs_eik(rng, sz):
    """A W x H navigation grid: terrain cost 1 .. 4 per metre (value noise), obstacle blocks and disks (cost -1),
    1 .. 4 goal cells (u = 0); the arrival times of an unfinished sweep: within a front radius of the nearest goal
    the straight-line distance times the mean cost times 1 .. 1.3 (overestimates to relax), beyond it and on
    obstacles UNREACHED."""
    w, h = sz["W"], sz["H"]
    cell = 0.1
    cost = 1.0 + 3.0 * _smooth_noise(rng, h, w, 24)
    yy, xx = np.ogrid[0:h, 0:w]
    for _ in range(int(w * h / 900) + 2):
        x, y = rng.integers(0, w), rng.integers(0, h)
        if rng.random() < 0.5:
            cost[y:y + rng.integers(2, 20), x:x + rng.integers(2, 20)] = -1.0
        else:
            rad = rng.integers(2, 10)
            y0, y1, x0, x1 = max(0, y - rad), min(h, y + rad + 1), max(0, x - rad), min(w, x + rad + 1)
            sub = cost[y0:y1, x0:x1]
            sub[(yy[y0:y1] - y) ** 2 + (xx[:, x0:x1] - x) ** 2 <= rad * rad] = -1.0
    goals = rng.integers(0, [w, h], (int(rng.integers(1, 5)), 2))
    cost[goals[:, 1], goals[:, 0]] = 1.0
    d = np.full((h, w), np.inf, dtype=np.float32)
    for gx, gy in goals:
        d = np.minimum(d, np.hypot(np.float32(xx - gx), np.float32(yy - gy)))
    front = rng.uniform(0.15, 0.45) * max(w, h)
    u = np.where(d < front, d * cell * 2.5 * (1.0 + 0.3 * rng.random((h, w), dtype=np.float32)), UNREACHED)
    u = np.where(cost <= 0.0, UNREACHED, u)
    u[goals[:, 1], goals[:, 0]] = 0.0
    return {"u_in": u, "cost": cost}


def _ref_eik(inp, sz):
    w, h = sz["W"], sz["H"]
    cell, eps = float(inp["h"]), float(inp["eps"])
    u, f = _f64(inp["u_in"]).reshape(h, w), _f64(inp["cost"]).reshape(h, w)
    pad = np.pad(u, 1, constant_values=np.float64(np.float32(UNREACHED)))
    a = np.minimum(pad[1:-1, :-2], pad[1:-1, 2:])
    b = np.minimum(pad[:-2, 1:-1], pad[2:, 1:-1])
    fh = f * cell
    diff = np.abs(a - b)
    with np.errstate(invalid="ignore"):
        two = 0.5 * (a + b + np.sqrt(np.maximum(2.0 * fh * fh - diff * diff, 0.0)))
    cand = np.where(diff >= fh, np.minimum(a, b) + fh, two)
    new = np.where((f > 0.0) & (u > 0.0), np.minimum(u, cand), u)
    return {"u_out": new, "changed": np.array([int(((u - new) > eps).sum())])}


def eikonal_godunov_tile_local() -> KernelSpec:
    return _spec(
        "eikonal_godunov_tile_local", tol=(1e-5, 1e-5),
        idiom="eikonal cost-field Jacobi sweep, 2-D: tile + halo in __local, Godunov upwind update, atomic count",
        sizes={"W": pow2(7, 13), "H": [192, 1024, 3072]}, check={"W": 150, "H": 100},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("h", "scalar", "float32", "0.1"), Arg("eps", "scalar", "float32", "1e-4"),
              Arg("u_in", "buffer", "float32", "W * H"), Arg("cost", "buffer", "float32", "W * H"),
              Arg("u_out", "buffer", "float32", "W * H", "out"), Arg("changed", "buffer", "int32", "1", "out"),
              Arg("tile", "local", "float32", "(l0 + 2) * (l1 + 2)")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_eik, make_inputs=_inputs_eik)


# --- blob autotiling of a uint32 tile map, 2-D ------------------------------------------------------------------------
def _reduce_blob(mask: np.ndarray) -> np.ndarray:
    """The 8-neighbour mask with each corner bit cleared unless both edges beside it are set (as the source)."""
    mask = mask.copy()
    for corner, edges in ((0x02, 0x05), (0x08, 0x14), (0x20, 0x50), (0x80, 0x41)):
        mask = np.where((mask & edges) != edges, mask & ~corner, mask)
    return mask


def _blob_lut() -> np.ndarray:
    """256 entries: each reduced mask's index among the 47 reduced masks in increasing order, 0 elsewhere."""
    reduced = np.unique(_reduce_blob(np.arange(256)))
    lut = np.zeros(256, dtype=np.uint32)
    lut[reduced] = np.arange(reduced.size)
    return lut


def _inputs_tile(rng, sz):
    """A W x H overworld: terrain type 0 .. 4 (deep water, shallows, sand, grass, forest) by thresholds of
    two-octave value noise, a sprinkle of single rock cells (type 5) and roads (type 6) along random rows and
    columns; bits 8 .. 19 hold per-cell data the tiler ignores (elevation, flags)."""
    w, h = sz["W"], sz["H"]
    noise = 0.7 * _smooth_noise(rng, h, w, 48) + 0.3 * _smooth_noise(rng, h, w, 8)
    kind = np.digitize(noise, [0.3, 0.38, 0.45, 0.6]).astype(np.uint32)
    kind[rng.random((h, w), dtype=np.float32) < 0.01] = 5
    kind[rng.integers(0, h, max(1, h // 64)), :] = 6
    kind[:, rng.integers(0, w, max(1, w // 64))] = 6
    extra = rng.integers(0, 1 << 12, (h, w), dtype=np.uint32) << 8
    return {"terrain": kind | extra, "blob_lut": _blob_lut()}


def _ref_tile(inp, sz):
    w, h = sz["W"], sz["H"]
    nvar, seed = int(inp["nvariants"]), np.uint32(inp["seed"])
    t = (np.asarray(inp["terrain"]).astype(np.int64) & 0xFF).reshape(h, w)
    pad = np.pad(t, 1, constant_values=-1)
    mask = np.zeros((h, w), dtype=np.int64)
    for k, (dx, dy) in enumerate(((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))):
        nb = pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        mask |= ((nb == t) | (nb < 0)).astype(np.int64) << k
    mask = _reduce_blob(mask)
    lut = np.asarray(inp["blob_lut"]).astype(np.int64)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.uint32)
    with np.errstate(over="ignore"):
        hv = (xx * np.uint32(0x8DA6B343)) ^ (yy * np.uint32(0xD8163841)) ^ seed
        hv ^= hv >> np.uint32(13)
        hv *= np.uint32(0x5BD1E995)
        hv ^= hv >> np.uint32(15)
    variant = np.where((mask == 0xFF) & (nvar > 1), hv.astype(np.int64) % max(nvar, 1), 0)
    return {"tiles": (t << 16) | (lut[mask] << 8) | variant}


def autotile_blob47_u32() -> KernelSpec:
    return _spec(
        "autotile_blob47_u32",
        idiom="47-blob autotiling of a uint32 tile map, 2-D: 8-neighbour same-terrain mask, corner rule, LUT, hash",
        sizes={"W": pow2(7, 13), "H": [200, 1500, 6000]}, check={"W": 200, "H": 150},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("nvariants", "scalar", "int32", "4"), Arg("seed", "scalar", "uint32", "2654435761"),
              Arg("terrain", "buffer", "uint32", "W * H"), Arg("blob_lut", "buffer", "uint32", "256"),
              Arg("tiles", "buffer", "uint32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_tile, make_inputs=_inputs_tile)


# --- MPPI rollouts of a kinematic bicycle through an inflated cost map -----------------------------------------------
MPPI_RES = 0.1
MPPI_SIGMA = (1.0, 0.3)  # noise std of acceleration (m/s^2) and steering (rad)


def _inputs_mppi(rng, sz):
    """An M x M cost map at 10 cm: a border wall and random obstacles (blocks and disks, ~8% of the area, none near
    the start), inflated as 100 exp(-2 (d - 0.5 m)) (100 inside); the car starts at 40% of the map heading +x at
    1 m/s; nominal controls a gentle S-curve; Gaussian noise per sample and step."""
    m, k, t = sz["M"], sz["K"], sz["T"]
    occ = np.zeros((m, m), dtype=bool)
    occ[:3], occ[-3:], occ[:, :3], occ[:, -3:] = True, True, True, True
    yy, xx = np.ogrid[0:m, 0:m]
    start = np.array([0.4 * m, 0.5 * m])
    for _ in range(int(m * m / 4000) + 3):
        x, y = rng.integers(0, m, 2)
        if np.hypot(x - start[0], y - start[1]) < 25:
            continue
        if rng.random() < 0.5:
            occ[y:y + rng.integers(3, 30), x:x + rng.integers(3, 30)] = True
        else:
            rad = rng.integers(3, 15)
            y0, y1, x0, x1 = max(0, y - rad), min(m, y + rad + 1), max(0, x - rad), min(m, x + rad + 1)
            occ[y0:y1, x0:x1] |= (yy[y0:y1] - y) ** 2 + (xx[:, x0:x1] - x) ** 2 <= rad * rad
    d = ndimage.distance_transform_edt(~occ) * MPPI_RES
    costmap = np.where(occ, 100.0, 100.0 * np.exp(-2.0 * np.maximum(d - 0.5, 0.0)))
    steps = np.arange(t)
    u_nom = np.stack([np.where(steps < t // 3, 0.8, 0.0), 0.25 * np.sin(2 * np.pi * steps / max(t, 1))], axis=1)
    noise = rng.normal(0.0, 1.0, (k, t, 2)) * np.array(MPPI_SIGMA)
    return {"state0": np.array([start[0] * MPPI_RES, start[1] * MPPI_RES, 0.0, 1.0]), "u_nom": u_nom,
            "noise": noise, "costmap": costmap}


def _ref_mppi(inp, sz):
    m, k, t = sz["M"], sz["K"], sz["T"]
    g = {n: float(inp[n]) for n in ("dt", "wheelbase", "v_max", "accel_max", "steer_max", "v_ref", "goal_x",
                                    "goal_y", "temperature", "inv_var_a", "inv_var_s", "w_speed", "w_goal",
                                    "lethal", "crash_cost", "resolution")}
    s0, u_nom = _f64(inp["state0"]), _f64(inp["u_nom"]).reshape(t, 2)
    eps = _f64(inp["noise"]).reshape(k, t, 2)
    cmap = _f64(inp["costmap"]).reshape(m, m)
    x, y, yaw, v = (np.full(k, s0[i]) for i in range(4))
    cost, crash, live = np.zeros(k), np.full(k, t), np.ones(k, dtype=bool)
    L, dt = g["wheelbase"], g["dt"]

    def lookup(wx, wy):
        return _bilinear(cmap, wx / g["resolution"] - 0.5, wy / g["resolution"] - 0.5, g["lethal"])

    for s in range(t):
        ua, us = u_nom[s]
        ea, es = eps[:, s, 0], eps[:, s, 1]
        acc = np.clip(ua + ea, -g["accel_max"], g["accel_max"])
        steer = np.clip(us + es, -g["steer_max"], g["steer_max"])
        step = g["temperature"] * (ua * ea * g["inv_var_a"] + us * es * g["inv_var_s"])
        nx, ny = x + v * np.cos(yaw) * dt, y + v * np.sin(yaw) * dt
        nyaw = yaw + v * np.tan(steer) / L * dt
        nv = np.clip(v + acc * dt, 0.0, g["v_max"])
        mc = np.maximum(lookup(nx, ny), lookup(nx + L * np.cos(nyaw), ny + L * np.sin(nyaw)))
        hit = live & (mc >= g["lethal"])
        cost = np.where(live, cost + step + np.where(hit, g["crash_cost"] * (t - s),
                                                     mc + g["w_speed"] * (nv - g["v_ref"]) ** 2), cost)
        crash = np.where(hit, s, crash)
        x, y, yaw, v = (np.where(live, a, b) for a, b in ((nx, x), (ny, y), (nyaw, yaw), (nv, v)))
        live &= ~hit
    cost = np.where(live, cost + g["w_goal"] * ((x - g["goal_x"]) ** 2 + (y - g["goal_y"]) ** 2), cost)
    return {"cost_out": cost, "crash_step": crash}


def mppi_bicycle_rollout() -> KernelSpec:
    inv_a, inv_s = 1.0 / MPPI_SIGMA[0] ** 2, 1.0 / MPPI_SIGMA[1] ** 2
    return _spec(
        "mppi_bicycle_rollout", tol=SUMS,
        idiom="MPPI rollout per sample: noisy bicycle-model steps, bilinear cost map at two axles, crash exit, costs",
        sizes={"K": pow2(8, 16, 2), "T": [16, 48, 128], "M": [1024]}, check={"K": 400, "T": 40, "M": 256},
        constraints=["K * T <= 2**22"],
        args=[Arg("nsamples", "scalar", "int32", "K"), Arg("horizon", "scalar", "int32", "T"),
              Arg("dt", "scalar", "float32", "0.1"), Arg("wheelbase", "scalar", "float32", "0.6"),
              Arg("v_max", "scalar", "float32", "3.0"), Arg("accel_max", "scalar", "float32", "2.5"),
              Arg("steer_max", "scalar", "float32", "0.5"), Arg("v_ref", "scalar", "float32", "2.0"),
              Arg("goal_x", "scalar", "float32", f"0.8 * M * {MPPI_RES}"),
              Arg("goal_y", "scalar", "float32", f"0.55 * M * {MPPI_RES}"),
              Arg("temperature", "scalar", "float32", "0.1"), Arg("inv_var_a", "scalar", "float32", str(inv_a)),
              Arg("inv_var_s", "scalar", "float32", str(inv_s)), Arg("w_speed", "scalar", "float32", "1.0"),
              Arg("w_goal", "scalar", "float32", "0.5"), Arg("lethal", "scalar", "float32", "90.0"),
              Arg("crash_cost", "scalar", "float32", "1000.0"),
              Arg("map_w", "scalar", "int32", "M"), Arg("map_h", "scalar", "int32", "M"),
              Arg("resolution", "scalar", "float32", str(MPPI_RES)),
              Arg("state0", "buffer", "float32", "4"), Arg("u_nom", "buffer", "float32", "2 * T"),
              Arg("noise", "buffer", "float32", "2 * K * T"), Arg("costmap", "buffer", "float32", "M * M"),
              Arg("cost_out", "buffer", "float32", "K", "out"), Arg("crash_step", "buffer", "int32", "K", "out")],
        gsize=[round_up("K")], local=L1, reference=_ref_mppi, make_inputs=_inputs_mppi)


#: this group's builders, in the order of ``specs()``
BUILDERS = (eikonal_godunov_tile_local, autotile_blob47_u32, mppi_bicycle_rollout)
