"""Holdout8 kernels, group robotics (written by hand; see docs/HOLDOUT8.md): robotics and games as application
programmers write them: the measurement update of a Monte Carlo localisation particle filter against a likelihood
field (bilinear distance-field lookups of every beam end point, the scan in __constant memory), a character
controller's "collide and slide" of game agents swept as boxes against the level's boxes (slab test, bump loop),
and damped-least-squares inverse kinematics of a 6-joint arm per target pose in fp64 (forward kinematics, Jacobian,
6x6 Cholesky solve, convergence exit). None of these three uses atomics; the group's other three kernels are in
:mod:`.robotics_more`."""
from __future__ import annotations

import numpy as np
from scipy import ndimage

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, SUMS, _f32, _f64, _spec, pow2, round_up


def _bilinear(field: np.ndarray, gx: np.ndarray, gy: np.ndarray, outside: float) -> np.ndarray:
    """Bilinear lookup of ``field`` at continuous cell coordinates (cell centres at integers); ``outside`` where the
    point is not inside [0, w - 1) x [0, h - 1)."""
    h, w = field.shape
    inside = (gx >= 0) & (gy >= 0) & (gx < w - 1) & (gy < h - 1)
    cx = np.where(inside, np.floor(gx), 0).astype(np.int64)
    cy = np.where(inside, np.floor(gy), 0).astype(np.int64)
    fx, fy = gx - cx, gy - cy
    top = field[cy, cx] + fx * (field[cy, cx + 1] - field[cy, cx])
    bot = field[cy + 1, cx] + fx * (field[cy + 1, cx + 1] - field[cy + 1, cx])
    return np.where(inside, top + fy * (bot - top), outside)


# --- MCL particle weights from a likelihood field, the scan in __constant ---------------------------------------------
MCL_RES = 0.05  # metres per cell
MCL_MAX_DIST = 2.0  # the distance field is clipped here (and is this far beyond the map)
MCL_RANGE_MAX = 12.0


def _building(rng, m: int, res: float, margin: int) -> np.ndarray:
    """An occupancy grid (True = wall) of a floor plan: outer walls ``margin`` cells inside the map edge, interior
    walls on a jittered room grid with door gaps, and furniture blocks."""
    occ = np.zeros((m, m), dtype=bool)
    lo, hi = margin, m - margin
    t = max(2, int(round(0.15 / res)))  # wall thickness
    occ[lo:lo + t, lo:hi] = occ[hi - t:hi, lo:hi] = True
    occ[lo:hi, lo:lo + t] = occ[lo:hi, hi - t:hi] = True
    room = int(4.0 / res)
    door = int(0.9 / res)
    for c in range(lo + room, hi - room // 2, room):
        c = int(c + rng.integers(-room // 4, room // 4 + 1))
        for a in range(lo, hi, room):  # a door in each room-length stretch of the wall
            d0 = int(a + rng.integers(t, max(t + 1, room - door - t)))
            vert, horz = slice(a, min(a + room, hi)), slice(c, c + t)
            occ[vert, horz] = True
            occ[d0:d0 + door, c:c + t] = False
            occ[horz, vert] = True
            occ[c:c + t, d0:d0 + door] = False
    for _ in range(int((hi - lo) ** 2 * res * res / 12.0)):  # a furniture block per ~12 m^2
        x, y = rng.integers(lo, hi, 2)
        sx, sy = rng.integers(int(0.3 / res), int(1.5 / res) + 1, 2)
        occ[y:y + sy, x:x + sx] = True
    return occ


def _inputs_mcl(rng, sz):
    """A floor plan (walls, doors, furniture) on an M x M grid at 5 cm; its distance field clipped at 2 m. One scan
    of B beams over 270 degrees ray-marched from a true pose in free space (2 cm noise, max-range readings where no
    wall is within 12 m, 5% short readings from people, 2% dropouts at 0). Particles: 60% around the true pose
    (0.3 m, 0.1 rad), the rest uniform over the map (global localisation)."""
    m, b, p = sz["M"], sz["B"], sz["P"]
    res, origin = MCL_RES, -0.5 * m * MCL_RES
    margin = int(MCL_MAX_DIST / res) + 4
    occ = _building(rng, m, res, margin)
    dist = np.minimum(ndimage.distance_transform_edt(~occ) * res, MCL_MAX_DIST)

    inner = np.zeros((m, m), dtype=bool)
    inner[margin + 8:m - margin - 8, margin + 8:m - margin - 8] = True
    free = np.argwhere(inner & (dist > 0.4))
    cy, cx = free[rng.integers(len(free))]
    tx, ty, tth = origin + (cx + 0.5) * res, origin + (cy + 0.5) * res, rng.uniform(-np.pi, np.pi)
    ang = np.linspace(-0.75 * np.pi, 0.75 * np.pi, b)
    steps = np.arange(1, int(MCL_RANGE_MAX / (0.5 * res)) + 1) * 0.5 * res  # (S,)
    sx, sy = tx + 0.2 * np.cos(tth), ty + 0.2 * np.sin(tth)
    ix = np.floor((sx + np.cos(tth + ang)[:, None] * steps - origin) / res).astype(np.int64)
    iy = np.floor((sy + np.sin(tth + ang)[:, None] * steps - origin) / res).astype(np.int64)
    hit = occ[np.clip(iy, 0, m - 1), np.clip(ix, 0, m - 1)] | (ix < 0) | (iy < 0) | (ix >= m) | (iy >= m)
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    ranges = np.where(first >= 0, steps[first] + rng.normal(0.0, 0.02, b), MCL_RANGE_MAX)
    short = rng.random(b) < 0.05
    ranges = np.where(short, rng.uniform(0.15, 1.0, b) * ranges, ranges)
    ranges = np.where(rng.random(b) < 0.02, 0.0, ranges)

    near = rng.random(p) < 0.6
    span = m * res
    pose = np.stack([np.where(near, tx + rng.normal(0, 0.3, p), origin + rng.uniform(0, span, p)),
                     np.where(near, ty + rng.normal(0, 0.3, p), origin + rng.uniform(0, span, p)),
                     np.where(near, tth + rng.normal(0, 0.1, p), rng.uniform(-np.pi, np.pi, p))], axis=1)
    return {"pose": pose, "ranges": ranges, "angles": ang, "dist_field": dist}


def _ref_mcl(inp, sz):
    m, p = sz["M"], sz["P"]
    g = {k: float(inp[k]) for k in ("resolution", "origin_x", "origin_y", "laser_off", "range_min", "range_max",
                                     "sigma_hit", "z_hit", "z_rand", "max_dist")}
    pose = _f64(inp["pose"]).reshape(p, 3)
    r32, a = np.asarray(inp["ranges"], dtype=np.float32), _f64(inp["angles"])
    dist = _f64(inp["dist_field"]).reshape(m, m)
    use = (r32 < np.float32(g["range_max"])) & (r32 >= np.float32(g["range_min"]))
    r, a = _f64(r32[use]), a[use]
    th = pose[:, 2:3]
    lx = pose[:, 0:1] + g["laser_off"] * np.cos(th)
    ly = pose[:, 1:2] + g["laser_off"] * np.sin(th)
    gx = (lx + r * np.cos(th + a) - g["origin_x"]) / g["resolution"] - 0.5
    gy = (ly + r * np.sin(th + a) - g["origin_y"]) / g["resolution"] - 0.5
    d = _bilinear(dist, gx, gy, g["max_dist"])
    pz = g["z_hit"] * np.exp(-d * d / (2.0 * g["sigma_hit"] ** 2)) + g["z_rand"] / g["range_max"]
    return {"log_w": np.log(pz).sum(axis=1)}


def mcl_likelihood_field_beams() -> KernelSpec:
    return _spec(
        "mcl_likelihood_field_beams", tol=SUMS,
        idiom="MCL particle weights: beam end points from the pose, bilinear distance-field lookup, log mixture sum",
        sizes={"P": pow2(8, 16, 2), "B": [40, 240, 1080], "M": [2048]}, check={"P": 400, "B": 181, "M": 256},
        constraints=["P * B <= 2**23"],
        args=[Arg("nparticles", "scalar", "int32", "P"), Arg("nbeams", "scalar", "int32", "B"),
              Arg("map_w", "scalar", "int32", "M"), Arg("map_h", "scalar", "int32", "M"),
              Arg("resolution", "scalar", "float32", str(MCL_RES)),
              Arg("origin_x", "scalar", "float32", f"-0.5 * M * {MCL_RES}"),
              Arg("origin_y", "scalar", "float32", f"-0.5 * M * {MCL_RES}"),
              Arg("laser_off", "scalar", "float32", "0.2"), Arg("range_min", "scalar", "float32", "0.1"),
              Arg("range_max", "scalar", "float32", str(MCL_RANGE_MAX)),
              Arg("sigma_hit", "scalar", "float32", "0.2"), Arg("z_hit", "scalar", "float32", "0.95"),
              Arg("z_rand", "scalar", "float32", "0.05"), Arg("max_dist", "scalar", "float32", str(MCL_MAX_DIST)),
              Arg("pose", "buffer", "float32", "3 * P"), Arg("ranges", "buffer", "float32", "B"),
              Arg("angles", "buffer", "float32", "B"), Arg("dist_field", "buffer", "float32", "M * M"),
              Arg("log_w", "buffer", "float32", "P", "out")],
        gsize=[round_up("P")], local=L1, reference=_ref_mcl, make_inputs=_inputs_mcl)


# --- collide and slide: agents swept as boxes against the level's boxes ----------------------------------------------
SLIDE_EPS2, SLIDE_STATIC = 1.0e-12, 1.0e-8  # the source's "no motion left" and "no motion on this axis" bounds


def _inputs_slide(rng, sz):
    """A level of M crates and walls (half sizes 0.3 .. 3 m, a fifth long thin walls) on a square floor of side
    6 sqrt(M) m, centred up to 6 m high; N agents (boxes 0.3 .. 0.6 m wide, 0.9 m half height) at random
    places up to 5 m high, each moving 0.5 .. 8 m this frame, mostly horizontally with a downward (gravity) part."""
    n, m = sz["N"], sz["M"]
    side = 6.0 * np.sqrt(m)
    half = rng.uniform(0.3, 3.0, (m, 3))
    wall = rng.random(m) < 0.2
    half[wall, 0] = np.where(rng.random(wall.sum()) < 0.5, rng.uniform(4.0, 12.0, wall.sum()), 0.2)
    half[wall, 2] = np.where(half[wall, 0] > 1.0, 0.2, rng.uniform(4.0, 12.0, wall.sum()))
    centre = np.stack([rng.uniform(0, side, m), rng.uniform(0.0, 6.0, m), rng.uniform(0, side, m)], axis=1)
    ext = np.stack([rng.uniform(0.3, 0.6, n), np.full(n, 0.9), rng.uniform(0.3, 0.6, n)], axis=1)
    pos = np.stack([rng.uniform(0, side, n), rng.uniform(0.9, 5.0, n), rng.uniform(0, side, n)], axis=1)
    heading = rng.uniform(-np.pi, np.pi, n)
    speed = rng.uniform(0.5, 8.0, n)
    disp = np.stack([speed * np.cos(heading), -rng.uniform(0.0, 1.5, n), speed * np.sin(heading)], axis=1)
    return {"pos": pos, "ext": ext, "disp": disp, "box_min": centre - half, "box_max": centre + half}


def _ref_slide(inp, sz):
    n, m = sz["N"], sz["M"]
    max_bumps, skin = int(inp["max_bumps"]), float(inp["skin"])
    p, mv = (_f64(inp[k]).reshape(n, 3).copy() for k in ("pos", "disp"))
    e = _f32(inp["ext"]).reshape(n, 3)
    # the grown boxes and the offsets to them in float32 as in the source, so that an agent touching a grown
    # box face (offset exactly 0) is decided the same way
    lo = _f32(inp["box_min"]).reshape(m, 3)[None, :, :] - e[:, None, :]  # (n, m, 3)
    hi = _f32(inp["box_max"]).reshape(m, 3)[None, :, :] + e[:, None, :]
    first, nb = np.full(n, -1), np.zeros(n, dtype=np.int64)
    live = np.ones(n, dtype=bool)
    rows = np.arange(n)
    for _ in range(max_bumps):
        live &= (mv * mv).sum(axis=1) >= SLIDE_EPS2
        if not live.any():
            break
        pk, mk = _f32(p)[:, None, :], mv[:, None, :]
        d_lo, d_hi = _f64(lo - pk), _f64(hi - pk)
        static = np.abs(mk) < SLIDE_STATIC
        with np.errstate(divide="ignore", invalid="ignore"):
            t0, t1 = d_lo / mk, d_hi / mk
        tmin = np.where(static, -np.inf, np.minimum(t0, t1))
        tmax = np.where(static, np.inf, np.maximum(t0, t1))
        miss = (static & ((d_lo >= 0) | (d_hi <= 0))).any(axis=2)
        t_in, axis = tmin.max(axis=2), tmin.argmax(axis=2)  # first axis of the largest entry time
        t_out = tmax.min(axis=2)
        ok = ~miss & (t_in < t_out) & (t_in >= 0.0) & (t_in < 1.0)
        cand = np.where(ok, t_in, np.inf)
        j = cand.argmin(axis=1)
        hit = live & np.isfinite(cand[rows, j])
        t_hit = np.where(hit, cand[rows, j], 1.0)
        p = np.where(live[:, None], p + mv * t_hit[:, None], p)
        nb += live
        ax = axis[rows, j]
        first = np.where(hit & (first < 0), j, first)
        back = np.where(mv[rows, ax] > 0.0, skin, -skin)
        p[rows[hit], ax[hit]] -= back[hit]
        mv = np.where(hit[:, None], mv * (1.0 - t_hit[:, None]), mv)
        mv[rows[hit], ax[hit]] = 0.0
        live &= hit
    return {"pos_out": p, "first_hit": first, "bumps": nb}


def swept_aabb_slide_agents() -> KernelSpec:
    return _spec(
        "swept_aabb_slide_agents", tol=(1e-4, 1e-4),
        idiom="collide and slide per game agent: slab test of the swept box against every level box, bump loop",
        sizes={"N": pow2(10, 18, 2), "M": [32, 256, 2048]}, check={"N": 500, "M": 64},
        constraints=["N * M <= 2**25"],
        args=[Arg("nagents", "scalar", "int32", "N"), Arg("nboxes", "scalar", "int32", "M"),
              Arg("max_bumps", "scalar", "int32", "3"), Arg("skin", "scalar", "float32", "0.001"),
              Arg("pos", "buffer", "float32", "3 * N"), Arg("ext", "buffer", "float32", "3 * N"),
              Arg("disp", "buffer", "float32", "3 * N"), Arg("box_min", "buffer", "float32", "3 * M"),
              Arg("box_max", "buffer", "float32", "3 * M"), Arg("pos_out", "buffer", "float32", "3 * N", "out"),
              Arg("first_hit", "buffer", "int32", "N", "out"), Arg("bumps", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_slide, make_inputs=_inputs_slide)


# --- damped least squares IK of a 6-joint arm, fp64 -------------------------------------------------------------------
#: a UR5-like arm, standard DH rows (a, alpha, d, theta offset)
IK_DH = np.array([[0.0, np.pi / 2, 0.089159, 0.0], [-0.425, 0.0, 0.0, 0.0], [-0.39225, 0.0, 0.0, 0.0],
                  [0.0, np.pi / 2, 0.10915, 0.0], [0.0, -np.pi / 2, 0.09465, 0.0], [0.0, 0.0, 0.0823, 0.0]])
IK_LO = np.array([-2 * np.pi, -np.pi, -2.8, -2 * np.pi, -2 * np.pi, -2 * np.pi])
IK_HI = -IK_LO


def _fk(q: np.ndarray):
    """Forward kinematics of a batch (n, 6): end rotation (n, 3, 3), position (n, 3), each joint's z axis and
    origin before its transform (n, 6, 3)."""
    n = q.shape[0]
    rot, o = np.tile(np.eye(3), (n, 1, 1)), np.zeros((n, 3))
    z, org = np.empty((n, 6, 3)), np.empty((n, 6, 3))
    for j, (a, alpha, d, off) in enumerate(IK_DH):
        z[:, j], org[:, j] = rot[:, :, 2], o
        th = q[:, j] + off
        ct, st, ca, sa = np.cos(th), np.sin(th), np.cos(alpha), np.sin(alpha)
        A = np.zeros((n, 3, 3))
        A[:, 0] = np.stack([ct, -st * ca, st * sa], axis=1)
        A[:, 1] = np.stack([st, ct * ca, -ct * sa], axis=1)
        A[:, 2] = np.stack([np.zeros(n), np.full(n, sa), np.full(n, ca)], axis=1)
        o = o + np.einsum("nij,nj->ni", rot, np.stack([a * ct, a * st, np.full(n, d)], axis=1))
        rot = rot @ A
    return rot, o, z, org


def _inputs_ik(rng, sz):
    """Target poses from the forward kinematics of random joint vectors within the limits: 60% seeded near the
    solution (tracking, 0.3 rad noise), 30% from a random seed anywhere in the joint range (may stall or
    converge to another branch), 10% pushed 1.4x outwards in position (out of reach: runs to max_iter)."""
    n = sz["N"]
    lo, hi = np.maximum(IK_LO, -np.pi), np.minimum(IK_HI, np.pi)
    q_true = rng.uniform(lo, hi, (n, 6))
    rot, pos, _, _ = _fk(q_true)
    kind = rng.random(n)
    pos = np.where((kind >= 0.9)[:, None], pos * 1.4, pos)
    seed = np.where((kind < 0.6)[:, None], q_true + rng.normal(0.0, 0.3, (n, 6)), rng.uniform(lo, hi, (n, 6)))
    return {"dh": IK_DH, "q_lo": IK_LO, "q_hi": IK_HI,
            "target": np.concatenate([pos, rot.reshape(n, 9)], axis=1), "q_init": np.clip(seed, IK_LO, IK_HI)}


def _ref_ik(inp, sz):
    n, max_iter = sz["N"], int(inp["max_iter"])
    lam, tol, max_step = float(inp["lambda"]), float(inp["tol"]), float(inp["max_step"])
    tg = _f64(inp["target"]).reshape(n, 12)
    pt, rt = tg[:, :3], tg[:, 3:].reshape(n, 3, 3)
    q = _f64(inp["q_init"]).reshape(n, 6).copy()
    it = np.zeros(n, dtype=np.int64)
    err2 = np.zeros(n)
    live = np.ones(n, dtype=bool)
    for step in range(max_iter + 1):
        rot, o, z, org = _fk(q)
        e = np.concatenate([pt - o, 0.5 * np.cross(rot.transpose(0, 2, 1), rt.transpose(0, 2, 1)).sum(axis=1)],
                           axis=1)
        err2 = np.where(live, (e * e).sum(axis=1), err2)
        live &= (err2 >= tol * tol) & (step < max_iter)
        if not live.any():
            break
        J = np.concatenate([np.cross(z, o[:, None, :] - org), z], axis=2).transpose(0, 2, 1)  # (n, 6, 6)
        A = J @ J.transpose(0, 2, 1) + lam * lam * np.eye(6)
        dq = np.einsum("nrj,nr->nj", J, np.linalg.solve(A, e[:, :, None])[:, :, 0])
        big = np.abs(dq).max(axis=1)
        scale = np.where(big > max_step, max_step / np.where(big > 0, big, 1.0), 1.0)
        q = np.where(live[:, None], np.clip(q + scale[:, None] * dq, IK_LO, IK_HI), q)
        it += live
    return {"q_out": q, "err_out": np.sqrt(err2), "iters": it}


def ik_dls_6dof_fp64() -> KernelSpec:
    return _spec(
        "ik_dls_6dof_fp64", precision="fp64", tol=(1e-7, 1e-9),
        idiom="6-DOF arm IK per target in fp64: DH forward kinematics, Jacobian, damped 6x6 Cholesky step, early exit",
        sizes={"N": pow2(8, 16, 2), "K": [12, 32, 96]}, check={"N": 300, "K": 40},
        constraints=["N * K <= 2**20"],
        args=[Arg("ntargets", "scalar", "int32", "N"), Arg("max_iter", "scalar", "int32", "K"),
              Arg("lambda", "scalar", "float64", "0.05"), Arg("tol", "scalar", "float64", "1e-5"),
              Arg("max_step", "scalar", "float64", "0.25"),
              Arg("dh", "buffer", "float64", "24"), Arg("q_lo", "buffer", "float64", "6"),
              Arg("q_hi", "buffer", "float64", "6"), Arg("target", "buffer", "float64", "12 * N"),
              Arg("q_init", "buffer", "float64", "6 * N"), Arg("q_out", "buffer", "float64", "6 * N", "out"),
              Arg("err_out", "buffer", "float64", "N", "out"), Arg("iters", "buffer", "int32", "N", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_ik, make_inputs=_inputs_ik)


#: this group's builders, in the order of ``specs()``
BUILDERS = (mcl_likelihood_field_beams, swept_aabb_slide_agents, ik_dls_6dof_fp64)
