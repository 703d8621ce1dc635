"""Holdout11 kernels, group lidar, continued (written by hand; see docs/HOLDOUT11.md): registration and motion
compensation: the correspondence step of point-to-plane ICP against a map in UTM coordinates, in fp64, a scan point
per work-item moved by the pose estimate, its nearest map point within a radius found by probing the 27 cells around
it in a spatial hash grid (xor-of-primes bucket, sorted runs with start / end arrays), then the residual along the
map normal and the Huber-weighted Jacobian row; a 2-D laser scan matcher's correlative search on a 2-D
(translation, rotation) NDRange, the scan staged through __local tiles, each candidate discretising the rotated
beams once and shifting them by whole cells over a uint8 probability grid, scored by the mean hit probability and a
distance-from-guess penalty; and lidar deskewing, each point's pose interpolated at its firing time (binary search of
the pose stamps, slerp or normalised lerp of the quaternions, lerp of the positions) and the point moved into the
frame of the sweep's end. None of these three uses atomics. Split from :mod:`.lidar` to keep each module short;
:mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _f64, _spec, pow2, round_up

ICP_ORIGIN = np.array([451000.0, 5411000.0, 118.0])  # icp_hashgrid_p2plane_fp64: the map's corner, UTM metres
ICP_DENSITY = 25.0  # map points a square metre of the map's footprint
ICP_PRIMES = (73856093, 19349663, 83492791)  # P1, P2, P3 in the source
ICP_HUBER = 0.1

CSM_MAP = 1024  # csm_window_score_2d: the probability grid's side in cells
CSM_RES = 0.0625  # metres a cell (a power of two: the source divides by it)
CSM_MAX_RANGE = 20.0
CSM_FOV = 1.5 * np.pi  # 270 degrees of beams
CSM_DTHETA = np.radians(0.5)
CSM_MARGIN = 1e-3  # no rotated beam within this many cells of a cell border (float rounding never moves one)
CSM_W_TRANS, CSM_W_ROT = 0.5, 2.0
CSM_THETA0, CSM_CELL0 = 0.7, CSM_MAP // 2  # the odometry guess: heading and cell

DSK_ROWS = 64  # deskew_slerp_imu_poses: returns a firing (a column of the sweep)
DSK_SWEEP_US = 100000  # a sweep every 100 ms
DSK_NLERP_DOT = 0.9995  # SLERP_NLERP_DOT in the source


# --- point-to-plane ICP correspondences in fp64 through a spatial hash grid -------------------------------------------
def _icp_scene(rng, m):
    """Surfaces of a map holding m points: the footprint's side, walls (centre, direction, length) and poles."""
    side = np.sqrt(m / ICP_DENSITY)
    nw, npole = max(4, m // 4000), max(4, m // 20000)
    walls = (rng.uniform(0.0, side, (nw, 2)), rng.uniform(0.0, np.pi, nw), rng.uniform(5.0, 30.0, nw))
    return side, walls, rng.uniform(0.0, side, (npole, 2))


def _icp_ground(x, y):
    return 0.03 * x + 0.01 * y + 0.3 * np.sin(x / 25.0)


def _icp_sample(rng, scene, n):
    """n points (local metres) and unit normals on the scene: 70% ground, 25% walls up to 8 m, 5% poles (15 cm)."""
    side, (wc, wphi, wlen), poles = scene
    kind = rng.random(n)
    x, y = rng.uniform(0.0, side, n), rng.uniform(0.0, side, n)
    z = _icp_ground(x, y)
    g = np.stack([-(0.03 + 0.3 / 25.0 * np.cos(x / 25.0)), np.full(n, -0.01), np.ones(n)], 1)
    nrm = g / np.linalg.norm(g, axis=1, keepdims=True)
    w = rng.integers(0, wphi.size, n)
    s, h = rng.uniform(-0.5, 0.5, n) * wlen[w], rng.uniform(0.0, 8.0, n)
    wall = (kind >= 0.70) & (kind < 0.95)
    x = np.where(wall, wc[w, 0] + s * np.cos(wphi[w]), x)
    y = np.where(wall, wc[w, 1] + s * np.sin(wphi[w]), y)
    z = np.where(wall, _icp_ground(wc[w, 0], wc[w, 1]) + h, z)
    nrm[wall] = np.stack([-np.sin(wphi[w]), np.cos(wphi[w]), np.zeros(n)], 1)[wall]
    p = rng.integers(0, poles.shape[0], n)
    a = rng.uniform(-np.pi, np.pi, n)
    pole = kind >= 0.95
    x = np.where(pole, poles[p, 0] + 0.15 * np.cos(a), x)
    y = np.where(pole, poles[p, 1] + 0.15 * np.sin(a), y)
    z = np.where(pole, _icp_ground(poles[p, 0], poles[p, 1]) + 6.0 * h / 8.0, z)
    nrm[pole] = np.stack([np.cos(a), np.sin(a), np.zeros(n)], 1)[pole]
    return np.stack([x, y, z], 1), nrm


def _icp_bucket(pts, cell, mask):
    c = np.floor(pts / cell).astype(np.int64) & 0xFFFFFFFF
    h = ((c[:, 0] * ICP_PRIMES[0]) ^ (c[:, 1] * ICP_PRIMES[1]) ^ (c[:, 2] * ICP_PRIMES[2])) & 0xFFFFFFFF
    return h & mask


def _rot_z(a):
    return np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])


def _inputs_icp(rng, sz):
    """A map of M = 2N points on ground, walls and poles (25 a square metre, corner at ICP_ORIGIN), sorted by hash
    bucket; a scan of N points from the footprint's centre: 92% new samples of the same surfaces with 2 cm noise, 8%
    movers 0.5 .. 2 m above the ground anywhere; the pose estimate off the truth by 0.06 deg and a few cm."""
    n, cell = sz["N"], sz["C"] / 10.0
    m, mask = 2 * n, 4 * n - 1
    scene = _icp_scene(rng, m)
    tgt, nrm = _icp_sample(rng, scene, m)
    tgt += ICP_ORIGIN
    b = _icp_bucket(tgt, cell, mask)
    order = np.argsort(b, kind="stable")
    tgt, nrm, b = tgt[order], nrm[order], b[order]
    src, _ = _icp_sample(rng, scene, n)
    src += rng.normal(0.0, 0.02, src.shape)
    mover = rng.random(n) < 0.08
    src[mover, 2] = _icp_ground(src[mover, 0], src[mover, 1]) + rng.uniform(0.5, 2.0, int(mover.sum()))
    src += ICP_ORIGIN
    side = scene[0]
    yaw = rng.uniform(-np.pi, np.pi)
    t_true = ICP_ORIGIN + np.array([side / 2, side / 2, _icp_ground(side / 2, side / 2) + 1.8])
    scan = (src - t_true) @ _rot_z(yaw)  # R^T (w - t) for every row
    pose = np.concatenate([_rot_z(yaw + 0.001).reshape(-1), t_true + np.array([0.05, -0.04, 0.02])])
    start = np.searchsorted(b, np.arange(mask + 1), "left")
    return {"src": scan, "pose": pose, "tgt": tgt, "tgt_nrm": nrm.astype(np.float32),
            "bucket_start": start, "bucket_end": np.searchsorted(b, np.arange(mask + 1), "right")}


def _ref_icp(inp, sz):
    """Brute force over the whole map (a chunk of scan points at a time): nearest within max_dist, first on a tie."""
    src = _f64(inp["src"]).reshape(-1, 3)
    pose = _f64(inp["pose"])
    tgt = _f64(inp["tgt"]).reshape(-1, 3)
    nrm = _f64(inp["tgt_nrm"]).reshape(-1, 3)
    a = src @ pose[:9].reshape(3, 3).T
    x = a + pose[9:]
    best = np.full(src.shape[0], -1, dtype=np.int64)
    lim = float(inp["max_dist"]) ** 2
    for c in range(0, src.shape[0], 256):
        d2 = ((tgt[None, :, :] - x[c:c + 256, None, :]) ** 2).sum(2)
        k = d2.argmin(1)
        best[c:c + 256] = np.where(d2[np.arange(k.size), k] < lim, k, -1)
    hit = best >= 0
    n = np.where(hit[:, None], nrm[np.maximum(best, 0)], 0.0)
    r = np.where(hit, ((x - tgt[np.maximum(best, 0)]) * n).sum(1), 0.0)
    k = float(inp["huber_k"])
    w = np.where(hit, np.where(np.abs(r) <= k, 1.0, k / np.maximum(np.abs(r), 1e-300)), 0.0)
    jac = np.concatenate([np.cross(a, n), n], 1) * w[:, None]
    return {"match": best, "resid": r, "jrow": jac}


def icp_hashgrid_p2plane_fp64() -> KernelSpec:
    return _spec(
        "icp_hashgrid_p2plane_fp64", tol=(1e-6, 1e-8), precision="fp64",
        idiom="point-to-plane ICP correspondences in fp64 (UTM map): pose transform, 27-cell probe of an xor-prime "
              "spatial hash with sorted bucket runs, radius-limited nearest, normal residual, Huber-weighted J row",
        sizes={"N": pow2(11, 19, 2), "C": [5, 8]}, check={"N": 1024, "C": 5},
        args=[Arg("nsrc", "scalar", "int32", "N"), Arg("table_mask", "scalar", "uint32", "4 * N - 1"),
              Arg("cell_size", "scalar", "float64", "C / 10"), Arg("max_dist", "scalar", "float64", "C / 10"),
              Arg("huber_k", "scalar", "float64", repr(ICP_HUBER)),
              Arg("src", "buffer", "float64", "N * 3"), Arg("pose", "buffer", "float64", "12"),
              Arg("tgt", "buffer", "float64", "2 * N * 3"), Arg("tgt_nrm", "buffer", "float32", "2 * N * 3"),
              Arg("bucket_start", "buffer", "int32", "4 * N"), Arg("bucket_end", "buffer", "int32", "4 * N"),
              Arg("match", "buffer", "int32", "N", "out"), Arg("resid", "buffer", "float64", "N", "out"),
              Arg("jrow", "buffer", "float64", "N * 6", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_icp, make_inputs=_inputs_icp)


# --- correlative scan matching over a (translation, rotation) window, 2-D --------------------------------------------
def _csm_map(rng):
    """A floor plan in a 64 m square: outer walls, 30 inner walls 2 .. 20 m, 200 pieces of furniture; occupied 230,
    blurred by a 5-tap binomial twice, free space 12 .. 30; the robot's spot kept clear."""
    occ = np.zeros((CSM_MAP, CSM_MAP), dtype=bool)
    lo, hi = 64, CSM_MAP - 64
    occ[lo:hi, lo:lo + 2] = occ[lo:hi, hi - 2:hi] = occ[lo:lo + 2, lo:hi] = occ[hi - 2:hi, lo:hi] = True
    for _ in range(30):
        a, b = rng.integers(lo, hi, 2)
        ln = int(rng.integers(32, 320))
        if rng.random() < 0.5:
            occ[a:a + 2, b:min(b + ln, hi)] = True
        else:
            occ[a:min(a + ln, hi), b:b + 2] = True
    for a, b in rng.integers(lo, hi - 4, (200, 2)):
        occ[a:a + 4, b:b + 4] = True
    occ[CSM_CELL0 - 12:CSM_CELL0 + 12, CSM_CELL0 - 12:CSM_CELL0 + 12] = False  # the robot stands here
    f = occ * 230.0
    k = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0
    for _ in range(2):
        for axis in (0, 1):
            f = sum(w * np.roll(f, s - 2, axis) for s, w in enumerate(k))
    prob = np.maximum(np.where(occ, 230.0, 3.0 * f), rng.uniform(12.0, 30.0, f.shape))
    return occ, np.minimum(prob, 255.0).astype(np.uint8)


def _csm_rotations(theta0, dtheta, nrot):
    """The candidates' rotation offsets and headings as the kernel forms them (float32)."""
    dth = np.arange(nrot, dtype=np.float32) - np.float32(nrot // 2)
    dth = dth * np.float32(dtheta)
    return dth, np.float32(theta0) + dth


def _inputs_csm(rng, sz):
    """The floor plan; B beams over 270 deg cast from near the map's centre, 1 cm noise, 3% dropped, 2% short
    (people, glass), NaN past 20 m; the true pose 3.4 cells and 2.3 steps of rotation off the guess. Each beam is
    nudged (by up to 2e-4 of its range) until no rotation candidate puts it within CSM_MARGIN of a cell border."""
    b, nrot = sz["B"], sz["R"]
    occ, prob = _csm_map(rng)
    theta0, cx0, cy0 = CSM_THETA0, CSM_CELL0, CSM_CELL0
    th_true = theta0 + 2.3 * CSM_DTHETA
    px, py = (cx0 + 3.4) * CSM_RES, (cy0 - 2.6) * CSM_RES
    ang = -0.5 * CSM_FOV + np.arange(b) * (CSM_FOV / (b - 1))
    steps = np.arange(1, int(CSM_MAX_RANGE / CSM_RES * 2)) * (CSM_RES / 2)
    wx = px + np.cos(th_true + ang)[:, None] * steps[None, :]
    wy = py + np.sin(th_true + ang)[:, None] * steps[None, :]
    ix = np.clip((wx / CSM_RES).astype(np.int64), 0, CSM_MAP - 1)
    iy = np.clip((wy / CSM_RES).astype(np.int64), 0, CSM_MAP - 1)
    hit = occ[iy, ix]
    r = np.where(hit.any(1), steps[hit.argmax(1)], np.nan) + rng.normal(0.0, 0.01, b)
    kind = rng.random(b)
    r = np.where(kind < 0.02, rng.uniform(0.5, 3.0, b), r)
    r = np.where(kind > 0.97, np.nan, r)
    _, th = _csm_rotations(theta0, CSM_DTHETA, nrot)
    c, s = np.cos(_f64(th))[None, :], np.sin(_f64(th))[None, :]
    for _ in range(500):
        pts = np.stack([r * np.cos(ang), r * np.sin(ang)], 1).astype(np.float32)
        qx, qy = (_f64(pts[:, :1]) * c - _f64(pts[:, 1:]) * s), (_f64(pts[:, :1]) * s + _f64(pts[:, 1:]) * c)
        with np.errstate(invalid="ignore"):
            fx, fy = qx / CSM_RES, qy / CSM_RES
            near = (np.abs(fx - np.rint(fx)) < CSM_MARGIN) | (np.abs(fy - np.rint(fy)) < CSM_MARGIN)
        bad = near.any(1)
        if not bad.any():
            break
        r = np.where(bad, r * (1.0 + rng.uniform(-2e-4, 2e-4, b)), r)
    else:
        raise RuntimeError("csm_window_score_2d: beams stay on cell borders")
    return {"scan_xy": pts, "prob_map": prob}


def _ref_csm(inp, sz):
    nrot, hw = sz["R"], sz["W"]
    side = 2 * hw + 1
    pts = _f64(inp["scan_xy"]).reshape(-1, 2)
    pts = pts[~np.isnan(pts[:, 0])]
    prob = np.asarray(inp["prob_map"]).astype(np.int64).reshape(CSM_MAP, CSM_MAP)
    dth, th = _csm_rotations(float(inp["theta0"]), float(inp["dtheta"]), nrot)
    tx = np.arange(side * side) % side - hw
    ty = np.arange(side * side) // side - hw
    cx0, cy0 = int(inp["cx0"]), int(inp["cy0"])
    score = np.zeros((nrot, side * side))
    pen_t = float(inp["w_trans"]) * np.hypot(tx, ty) * CSM_RES
    for k in range(nrot):
        c, s = np.cos(float(th[k])), np.sin(float(th[k]))
        ix = np.floor((c * pts[:, 0] - s * pts[:, 1]) / CSM_RES).astype(np.int64)[None, :] + (cx0 + tx)[:, None]
        iy = np.floor((s * pts[:, 0] + c * pts[:, 1]) / CSM_RES).astype(np.int64)[None, :] + (cy0 + ty)[:, None]
        inside = (ix >= 0) & (ix < CSM_MAP) & (iy >= 0) & (iy < CSM_MAP)
        acc = np.where(inside, prob[np.clip(iy, 0, CSM_MAP - 1), np.clip(ix, 0, CSM_MAP - 1)], 0).sum(1)
        mean = acc / (255.0 * pts.shape[0]) if pts.shape[0] else 0.0 * acc
        pen = pen_t + float(inp["w_rot"]) * abs(float(dth[k]))
        score[k] = mean * np.exp(-pen * pen)
    return {"score": score}


def csm_window_score_2d() -> KernelSpec:
    return _spec(
        "csm_window_score_2d", tol=(1e-4, 1e-6),
        idiom="correlative scan matching, 2-D (translation, rotation): scan tiles in __local, rotated beams "
              "floored to cells then shifted by whole cells, uint8 grid gathers with map bounds, NaN beams "
              "skipped, mean hit probability times a distance-from-guess penalty",
        sizes={"B": [180, 540, 1080], "R": [24, 72], "W": [8, 16, 32]}, check={"B": 90, "R": 10, "W": 3},
        constraints=["(2 * W + 1) ** 2 * R * B <= 2 ** 27"],
        args=[Arg("nbeam", "scalar", "int32", "B"), Arg("nrot", "scalar", "int32", "R"),
              Arg("half_win", "scalar", "int32", "W"), Arg("theta0", "scalar", "float32", repr(CSM_THETA0)),
              Arg("dtheta", "scalar", "float32", repr(float(CSM_DTHETA))),
              Arg("res", "scalar", "float32", repr(CSM_RES)), Arg("map_w", "scalar", "int32", str(CSM_MAP)),
              Arg("map_h", "scalar", "int32", str(CSM_MAP)), Arg("cx0", "scalar", "int32", str(CSM_CELL0)),
              Arg("cy0", "scalar", "int32", str(CSM_CELL0)), Arg("w_trans", "scalar", "float32", repr(CSM_W_TRANS)),
              Arg("w_rot", "scalar", "float32", repr(CSM_W_ROT)), Arg("scan_xy", "buffer", "float32", "B * 2"),
              Arg("prob_map", "buffer", "uint8", f"{CSM_MAP} * {CSM_MAP}"),
              Arg("score", "buffer", "float32", "R * (2 * W + 1) ** 2", "out"),
              Arg("tile", "local", "float32", "l0 * l1 * 2")],
        gsize=[round_up("(2 * W + 1) ** 2", 32), round_up("R", 16)], local=L2, reference=_ref_csm,
        make_inputs=_inputs_csm)


# --- lidar deskew: per-point pose by binary search and slerp, moved into the sweep's end frame -----------------------
def _dsk_quat(yaw, pitch, roll):
    """Unit quaternions (w, x, y, z) of z-y-x Euler angles."""
    cy, sy, cp, sp = np.cos(yaw / 2), np.sin(yaw / 2), np.cos(pitch / 2), np.sin(pitch / 2)
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    return np.stack([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy], -1)


def _dsk_rotate(q, v):
    """v + w t + u x t with t = 2 u x v, the source's quat_rotate, row by row."""
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + q[..., :1] * t + np.cross(u, t)


def _inputs_dsk(rng, sz):
    """N returns of a 64-row spinning sensor in firing order (a column every T / (N / 64), 8-laser groups 1 us
    apart), N / 2**17 sweeps of 100 ms (at least one); ranges 2 .. 60 m, 4% without a return (zero). K poses of a
    handheld scanner, stamped evenly from 0.2 ms after the first return to 0.2 ms before the last (returns outside
    clamp): walking at 1.4 m/s with a 3 cm bob, yaw swinging at -1.6 .. 4.6 rad/s, some pitch and roll; the motion
    scaled down until no pose pair sits at slerp's switch to lerp."""
    n, k = sz["N"], sz["K"]
    total = DSK_SWEEP_US * max(1, n // 2**17)
    ncol = (n + DSK_ROWS - 1) // DSK_ROWS
    i = np.arange(n)
    t = (i // DSK_ROWS) * total // ncol + (i % DSK_ROWS) // 8
    stamps = np.rint(np.linspace(200, total - 200, k)).astype(np.int64)
    ts = stamps / 1e6
    amp = 1.0
    while True:
        yaw = 0.3 + amp * (1.5 * ts + 0.15 * np.sin(2 * np.pi * ts / 0.3))
        q = _dsk_quat(yaw, amp * 0.15 * np.sin(2 * np.pi * ts / 0.9), amp * 0.1 * np.sin(2 * np.pi * ts / 0.7))
        q32 = q.astype(np.float32)
        d = np.abs((_f64(q32[1:]) * _f64(q32[:-1])).sum(1))
        if not np.any(np.abs(d - DSK_NLERP_DOT) < 2e-5):
            break
        amp *= 0.95
    pos = np.stack([1.4 * ts * np.cos(0.2), 1.4 * ts * np.sin(0.2), 0.03 * np.sin(2 * np.pi * ts / 0.55)], 1)
    az = 2 * np.pi * (t % DSK_SWEEP_US) / DSK_SWEEP_US - np.pi
    el = np.radians(2.0 - 26.9 * (i % DSK_ROWS) / (DSK_ROWS - 1))
    r = 2.0 * 30.0 ** rng.random(n)
    pts = np.stack([r * np.cos(el) * np.cos(az), r * np.cos(el) * np.sin(az), r * np.sin(el)], 1)
    pts[rng.random(n) < 0.04] = 0.0
    return {"pts": pts.astype(np.float32), "t_us": t.astype(np.uint32), "pose_t_us": stamps.astype(np.uint32),
            "pose_q": q32, "pose_p": pos.astype(np.float32)}


def _ref_dsk(inp, sz):
    v = _f64(inp["pts"]).reshape(-1, 3)
    t = np.asarray(inp["t_us"]).astype(np.int64)
    st = np.asarray(inp["pose_t_us"]).astype(np.int64)
    q = _f64(inp["pose_q"]).reshape(-1, 4)
    p = _f64(inp["pose_p"]).reshape(-1, 3)
    lo = np.clip(np.searchsorted(st, t, "right") - 1, 0, st.size - 2)
    t0, t1 = st[lo], st[lo + 1]
    a = np.where(t <= t0, 0.0, np.where(t >= t1, 1.0, (t - t0) / np.maximum(t1 - t0, 1)))[:, None]
    q0, q1 = q[lo], q[lo + 1]
    d = (q0 * q1).sum(1, keepdims=True)
    q1 = np.where(d < 0, -q1, q1)
    d = np.abs(d)
    th = np.arccos(np.minimum(d, 1.0))
    sn = np.where(d > DSK_NLERP_DOT, 1.0, np.sin(th))
    qs = np.where(d > DSK_NLERP_DOT, q0 + a * (q1 - q0), (np.sin((1 - a) * th) * q0 + np.sin(a * th) * q1) / sn)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    pos = p[lo] + a * (p[lo + 1] - p[lo])
    w = _dsk_rotate(qs, v) + (pos - p[-1])
    qe = q[-1] * np.array([1.0, -1.0, -1.0, -1.0])
    out = _dsk_rotate(np.broadcast_to(qe, (v.shape[0], 4)), w)
    return {"out_xyz": np.where(np.all(v == 0.0, 1, keepdims=True), 0.0, out)}


def deskew_slerp_imu_poses() -> KernelSpec:
    return _spec(
        "deskew_slerp_imu_poses", tol=(1e-5, 5e-5),
        idiom="lidar deskew per point: binary search of uint32 pose stamps, clamped fraction, quaternion slerp "
              "(hemisphere flip, nlerp when close) and position lerp, rotate into the sweep-end frame (vload3)",
        sizes={"N": pow2(14, 22, 2), "K": [8, 1024]}, check={"N": 4000, "K": 6},
        args=[Arg("npts", "scalar", "int32", "N"), Arg("npose", "scalar", "int32", "K"),
              Arg("pts", "buffer", "float32", "N * 3"), Arg("t_us", "buffer", "uint32", "N"),
              Arg("pose_t_us", "buffer", "uint32", "K"), Arg("pose_q", "buffer", "float32", "K * 4"),
              Arg("pose_p", "buffer", "float32", "K * 3"), Arg("out_xyz", "buffer", "float32", "N * 3", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_dsk, make_inputs=_inputs_dsk)


#: this group's builders, in the order of ``specs()``
BUILDERS = (icp_hashgrid_p2plane_fp64, csm_window_score_2d, deskew_slerp_imu_poses)
