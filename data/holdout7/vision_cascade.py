"""Holdout7 kernels, group vision (continued): a Viola-Jones cascade of Haar-like features on a uint integral image,
a window per work-item, stage votes and early rejection; all-integer, so its outputs match numpy exactly. Split from
:mod:`.vision` (whose synthetic scene it uses) to keep each module short; :mod:`.catalog` lists it after that group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, _spec, pow2, round_up
from .vision import _scene

HAAR_WIN = 24  # haar_cascade_reject: detection window side in pixels
HAAR_STAGES = 12  # stages of the cascade; stage s has 3 + 2 s weak classifiers
HAAR_FEATS = sum(3 + 2 * s for s in range(HAAR_STAGES))


def _haar_windows(w, h, step):
    nx, ny = (w - HAAR_WIN) // step + 1, (h - HAAR_WIN) // step + 1
    k = np.arange(nx * ny)
    return (k % nx) * step, (k // nx) * step


def _haar_eval(ii, ft, wx, wy):
    """The feature values of one feature (18 ints) at windows (wx, wy), exactly as integers."""
    val = np.zeros(wx.shape, dtype=np.int64)
    for r in range(3):
        x, y, w, h, wt = (int(v) for v in ft[5 * r:5 * r + 5])
        if wt == 0:
            break
        x0, y0 = wx + x, wy + y
        s = ii[y0 + h, x0 + w] - ii[y0 + h, x0] - ii[y0, x0 + w] + ii[y0, x0]
        val += wt * s
    return val


def _inputs_haar(rng, sz):
    """An 8-bit scene and its uint integral image; a 12-stage cascade of random two- and three-rectangle
    features (edges and lines) whose thresholds split the feature's values on sampled windows of this image
    near the median and whose stage thresholds let about 55% of the windows through each stage."""
    n, step = sz["S"], sz["T"]
    img = np.rint(255.0 * _scene(rng, n, n)).astype(np.int64)
    ii = np.zeros((n + 1, n + 1), dtype=np.int64)
    ii[1:, 1:] = img.cumsum(0).cumsum(1)
    wx, wy = _haar_windows(n, n, step)
    pick = rng.integers(0, wx.size, min(wx.size, 2000))
    sx, sy = wx[pick], wy[pick]
    feats, stage_len, stage_thr = [], [], []
    for s in range(HAAR_STAGES):
        stage_sum = np.zeros(sx.size, dtype=np.int64)
        for _ in range(3 + 2 * s):
            ft = np.zeros(18, dtype=np.int64)
            kind = rng.integers(0, 3)
            if kind == 0:  # left/right edge: right half minus whole
                fw, fh = rng.integers(2, 12), rng.integers(2, 24)
                x, y = rng.integers(0, HAAR_WIN - 2 * fw + 1), rng.integers(0, HAAR_WIN - fh + 1)
                ft[:10] = (x, y, 2 * fw, fh, -1, x + fw, y, fw, fh, 2)
            elif kind == 1:  # top/bottom edge
                fw, fh = rng.integers(2, 24), rng.integers(2, 12)
                x, y = rng.integers(0, HAAR_WIN - fw + 1), rng.integers(0, HAAR_WIN - 2 * fh + 1)
                ft[:10] = (x, y, fw, 2 * fh, -1, x, y + fh, fw, fh, 2)
            else:  # vertical line: middle third against the sides, three rectangles
                fw, fh = rng.integers(2, 8), rng.integers(2, 24)
                x, y = rng.integers(0, HAAR_WIN - 3 * fw + 1), rng.integers(0, HAAR_WIN - fh + 1)
                ft[:15] = (x, y, fw, fh, -1, x + fw, y, fw, fh, 2, x + 2 * fw, y, fw, fh, -1)
            val = _haar_eval(ii, ft, sx, sy)
            ft[15] = int(np.quantile(val, rng.uniform(0.3, 0.7)))
            votes = rng.integers(1, 20, 2) * np.array([-1, 1]) * rng.choice([-1, 1])
            ft[16], ft[17] = votes
            stage_sum += np.where(val < ft[15], ft[16], ft[17])
            feats.append(ft)
        stage_len.append(3 + 2 * s)
        stage_thr.append(int(np.quantile(stage_sum, 0.45)))
    return {"integral": ii.reshape(-1), "features": np.concatenate(feats), "stage_len": stage_len,
            "stage_thresh": stage_thr}


def _ref_haar(inp, sz):
    n, step = sz["S"], sz["T"]
    ii = np.asarray(inp["integral"], dtype=np.int64).reshape(n + 1, n + 1)
    feats = np.asarray(inp["features"], dtype=np.int64).reshape(-1, 18)
    lens, thr = np.asarray(inp["stage_len"]), np.asarray(inp["stage_thresh"])
    wx, wy = _haar_windows(n, n, step)
    depth = np.full(wx.size, HAAR_STAGES, dtype=np.int64)
    score = np.zeros(wx.size, dtype=np.int64)
    alive = np.arange(wx.size)
    f = 0
    for s in range(HAAR_STAGES):
        total = np.zeros(alive.size, dtype=np.int64)
        for ft in feats[f:f + lens[s]]:
            val = _haar_eval(ii, ft, wx[alive], wy[alive])
            total += np.where(val < ft[15], ft[16], ft[17])
        f += lens[s]
        score[alive] = total
        out = total < thr[s]
        depth[alive[out]] = s
        alive = alive[~out]
    return {"depth": depth, "score": score}


def haar_cascade_reject() -> KernelSpec:
    return _spec(
        "haar_cascade_reject",
        idiom="Viola-Jones cascade per window: Haar rectangle sums from a uint integral image, stage votes, early exit",
        sizes={"S": pow2(7, 12), "T": [1, 2]}, check={"S": 96, "T": 1},
        constraints=["((S - 24) // T + 1)**2 <= 2**23"],
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "S"),
              Arg("win", "scalar", "int32", str(HAAR_WIN)), Arg("step", "scalar", "int32", "T"),
              Arg("nstages", "scalar", "int32", str(HAAR_STAGES)),
              Arg("integral", "buffer", "uint32", "(S + 1) * (S + 1)"),
              Arg("features", "buffer", "int32", str(18 * HAAR_FEATS)),
              Arg("stage_len", "buffer", "int32", str(HAAR_STAGES)),
              Arg("stage_thresh", "buffer", "int32", str(HAAR_STAGES)),
              Arg("depth", "buffer", "int32", "((S - 24) // T + 1)**2", "out"),
              Arg("score", "buffer", "int32", "((S - 24) // T + 1)**2", "out")],
        gsize=[round_up("((S - 24) // T + 1)**2")], local=L1, reference=_ref_haar, make_inputs=_inputs_haar)


#: this group's builders, in the order of ``specs()``


BUILDERS = (haar_cascade_reject,)
