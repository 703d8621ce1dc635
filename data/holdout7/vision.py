"""Holdout7 kernels, group vision: computer vision as application programmers write it: a Harris corner response
over a window on a 2-D NDRange, class-aware "fast NMS" of detection boxes by IoU against every higher-scored box,
per-pixel Lucas-Kanade flow in fp64 with an eigenvalue test, census-signature stereo matching by Hamming cost and
winner-takes-all over disparities, and HOG cell histograms built by a work-group per cell in __local memory with
fixed-point atomics (the group's Viola-Jones cascade is in :mod:`.vision_cascade`).
The one kernel with atomics (HOG) adds integer votes in 1/256 fixed point, so its sums do not depend on order."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _f64, _spec, pow2, round_up



def _box_sum(a: np.ndarray, r: int) -> np.ndarray:
    """Sum of a over the (2r+1)^2 window centred on each pixel whose window lies inside a (shape shrinks by 2r)."""
    w = 2 * r + 1
    return np.lib.stride_tricks.sliding_window_view(a, (w, w)).sum(axis=(2, 3))


def _scene(rng, h: int, w: int) -> np.ndarray:
    """A synthetic grey scene in [0, 1]: a smooth gradient, a few dozen flat rectangles and disks of random
    brightness (corners, edges, flat areas) and a little sensor noise."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    img = 0.3 + 0.2 * (xx / w) + 0.1 * (yy / h)
    for _ in range(int(rng.integers(20, 40))):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        sx, sy = rng.integers(4, max(8, w // 6)), rng.integers(4, max(8, h // 6))
        val = rng.uniform(0.0, 1.0)
        if rng.random() < 0.6:
            img[y0:y0 + sy, x0:x0 + sx] = val
        else:
            img[(xx - x0) ** 2 + (yy - y0) ** 2 < sx * sx] = val
    return np.clip(img + rng.normal(0.0, 0.01, (h, w)), 0.0, 1.0)


# --- Harris corner response, 2-D ------------------------------------------------------------------------------------
def _inputs_harris(rng, sz):
    return {"img": _scene(rng, 3 * sz["S"] // 4, sz["S"])}


def _ref_harris(inp, sz):
    w, h, r, k = sz["S"], 3 * sz["S"] // 4, sz["R"], float(np.float32(inp["k"]))
    img = _f64(inp["img"]).reshape(h, w)
    ix, iy = np.zeros((h, w)), np.zeros((h, w))
    ix[:, 1:-1] = 0.5 * (img[:, 2:] - img[:, :-2])
    iy[1:-1, :] = 0.5 * (img[2:, :] - img[:-2, :])
    sxx, syy, sxy = (_box_sum(a, r) for a in (ix * ix, iy * iy, ix * iy))  # centred on r .. h - r - 1
    resp = np.zeros((h, w))
    b = r + 1
    c = slice(1, -1)  # window centres b .. n - b - 1 inside the box sums' r .. n - r - 1
    resp[b:h - b, b:w - b] = (sxx * syy - sxy * sxy - k * (sxx + syy) ** 2)[c, c]
    return {"resp": resp}


def harris_response_win_2d() -> KernelSpec:
    return _spec(
        "harris_response_win_2d", tol=(1e-3, 2e-3),
        idiom="Harris corner response, 2-D: structure tensor summed over a radius window, gradients recomputed inline",
        sizes={"S": pow2(7, 12), "R": [1, 2, 3]}, check={"S": 160, "R": 2},
        constraints=["S * S * (2 * R + 1)**2 <= 2**29"],
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "3 * S // 4"),
              Arg("radius", "scalar", "int32", "R"), Arg("k", "scalar", "float32", "0.04"),
              Arg("img", "buffer", "float32", "S * (3 * S // 4)"),
              Arg("resp", "buffer", "float32", "S * (3 * S // 4)", "out")],
        gsize=[round_up("S", 32), round_up("3 * S // 4", 32)], local=L2, reference=_ref_harris,
        make_inputs=_inputs_harris)


# --- fast NMS of detection boxes ---------------------------------------------------------------------------------------
def _inputs_nms(rng, sz):
    """Detections in a 1920x1080 frame with integer pixel corners: objects of 16 .. 320 pixels a side, each
    found 1 .. 12 times with jittered corners (same class), plus 20% clutter boxes of random class; scores
    sorted high to low, about a tenth under the score threshold."""
    n, c = sz["n"], sz["C"]
    boxes = np.empty((n, 4))
    cls = np.empty(n, dtype=np.int64)
    i = 0
    while i < n:
        if rng.random() < 0.2:
            w, h = rng.integers(8, 400, 2)
            x0, y0 = rng.integers(0, 1920 - w), rng.integers(0, 1080 - h)
            boxes[i] = (x0, y0, x0 + w, y0 + h)
            cls[i] = rng.integers(0, c)
            i += 1
            continue
        w, h = rng.integers(16, 320, 2)
        x0, y0 = rng.integers(0, 1920 - w), rng.integers(0, 1080 - h)
        k, cl = min(int(rng.integers(1, 13)), n - i), rng.integers(0, c)
        jit = np.rint(rng.normal(0.0, 0.08, (k, 4)) * np.array([w, h, w, h]))
        b = np.array([x0, y0, x0 + w, y0 + h]) + jit
        b[:, 2] = np.maximum(b[:, 2], b[:, 0] + 2)
        b[:, 3] = np.maximum(b[:, 3], b[:, 1] + 2)
        boxes[i:i + k], cls[i:i + k] = b, cl
        i += k
    order = rng.permutation(n)
    scores = np.sort(rng.beta(2.0, 2.0, n))[::-1]
    return {"boxes": boxes[order], "cls": cls[order], "scores": scores}


def _ref_nms(inp, sz):
    n = sz["n"]
    b = _f64(inp["boxes"]).reshape(n, 4)
    cls, scores = np.asarray(inp["cls"]).reshape(n), np.asarray(inp["scores"], dtype=np.float32).reshape(n)
    thr, sthr = float(np.float32(inp["iou_thresh"])), np.float32(inp["score_thresh"])
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    by = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        if scores[i] < sthr:
            by[i] = -2
            continue
        j = np.flatnonzero(cls[:i] == cls[i])
        iw = np.minimum(b[i, 2], b[j, 2]) - np.maximum(b[i, 0], b[j, 0])
        ih = np.minimum(b[i, 3], b[j, 3]) - np.maximum(b[i, 1], b[j, 1])
        inter = np.where((iw > 0) & (ih > 0), iw * ih, 0.0)
        hit = np.flatnonzero((inter > 0) & (inter / (area[i] + area[j] - inter) > thr))
        if hit.size:
            by[i] = j[hit[0]]
    return {"keep": (by == -1).astype(np.int64), "by": by}


def nms_fast_iou_class() -> KernelSpec:
    return _spec(
        "nms_fast_iou_class",
        idiom="class-aware fast NMS: each box scans all higher-scored boxes for an IoU over threshold, breaks on hit",
        sizes={"n": pow2(8, 15), "C": [1, 20]}, check={"n": 1500, "C": 4},
        args=[Arg("nbox", "scalar", "int32", "n"), Arg("iou_thresh", "scalar", "float32", "0.5"),
              Arg("score_thresh", "scalar", "float32", "0.1"), Arg("boxes", "buffer", "float32", "4 * n"),
              Arg("scores", "buffer", "float32", "n"), Arg("cls", "buffer", "int32", "n"),
              Arg("keep", "buffer", "int32", "n", "out"), Arg("by", "buffer", "int32", "n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_nms, make_inputs=_inputs_nms)


# --- Lucas-Kanade optical flow per pixel, fp64 ------------------------------------------------------------------------
def _lk_pattern(xx, yy, phases):
    """A smooth textured pattern: a sum of oriented sinusoids, flattened to a constant where a mask is set."""
    out = np.zeros_like(xx)
    for fx, fy, ph, amp in phases:
        out += amp * np.sin(fx * xx + fy * yy + ph)
    return out


def _inputs_lk(rng, sz):
    """Frame 0: six oriented sinusoids of periods 6 .. 40 pixels, with flat (constant) rectangles covering part
    of the frame (untextured: the flow there is zeroed) and a strip of a single sinusoid (aperture problem).
    Frame 1: the same pattern moved by a smooth flow field of up to 0.8 pixels (a rotation plus a drift)."""
    w = h = sz["S"]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    waves = [(*(rng.uniform(2 * np.pi / 40, 2 * np.pi / 6) * np.array([np.cos(a), np.sin(a)])),
              rng.uniform(0, 2 * np.pi), rng.uniform(0.1, 0.4)) for a in rng.uniform(0, np.pi, 6)]
    ang = 0.8 / w
    u = -ang * (yy - h / 2) + rng.uniform(-0.3, 0.3)
    v = ang * (xx - w / 2) + rng.uniform(-0.3, 0.3)
    f0, f1 = _lk_pattern(xx, yy, waves), _lk_pattern(xx - u, yy - v, waves)
    flat = np.zeros((h, w), dtype=bool)
    for _ in range(4):
        x0, y0, s = rng.integers(0, w), rng.integers(0, h), rng.integers(8, max(9, w // 4))
        flat[y0:y0 + s, x0:x0 + s] = True
    f0, f1 = np.where(flat, 0.5, f0), np.where(flat, 0.5, f1)
    y0 = int(rng.integers(0, h - h // 8))
    strip = slice(y0, y0 + h // 8)
    f0[strip], f1[strip] = np.sin(0.5 * xx[strip]), np.sin(0.5 * (xx[strip] - u[strip]))
    return {"frame0": f0, "frame1": f1}


def _ref_lk(inp, sz):
    w = h = sz["S"]
    r, min_eig = sz["R"], float(inp["min_eig"])
    f0, f1 = _f64(inp["frame0"]).reshape(h, w), _f64(inp["frame1"]).reshape(h, w)
    ix, iy = np.zeros((h, w)), np.zeros((h, w))
    ix[:, 1:-1] = 0.5 * (f0[:, 2:] - f0[:, :-2])
    iy[1:-1, :] = 0.5 * (f0[2:, :] - f0[:-2, :])
    it = f1 - f0
    c = slice(1, -1)
    a11, a12, a22, b1, b2 = (_box_sum(a, r)[c, c] for a in (ix * ix, ix * iy, iy * iy, -ix * it, -iy * it))
    lmin = 0.5 * (a11 + a22) - np.sqrt((0.5 * (a11 - a22)) ** 2 + a12 * a12)
    ok = lmin >= min_eig
    det = np.where(ok, a11 * a22 - a12 * a12, 1.0)
    u, v = np.zeros((h, w)), np.zeros((h, w))
    b = r + 1
    u[b:h - b, b:w - b] = np.where(ok, (a22 * b1 - a12 * b2) / det, 0.0)
    v[b:h - b, b:w - b] = np.where(ok, (a11 * b2 - a12 * b1) / det, 0.0)
    return {"u": u, "v": v}


def lk_flow_window_fp64() -> KernelSpec:
    return _spec(
        "lk_flow_window_fp64", precision="fp64", tol=(1e-8, 1e-10),
        idiom="Lucas-Kanade flow per pixel in fp64: window normal equations, min-eigenvalue test, 2x2 Cramer solve",
        sizes={"S": pow2(7, 12), "R": [2, 4]}, check={"S": 120, "R": 2},
        constraints=["S * S * (2 * R + 1)**2 <= 2**28"],
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "S"),
              Arg("radius", "scalar", "int32", "R"), Arg("min_eig", "scalar", "float64", "0.01"),
              Arg("frame0", "buffer", "float64", "S * S"), Arg("frame1", "buffer", "float64", "S * S"),
              Arg("u", "buffer", "float64", "S * S", "out"), Arg("v", "buffer", "float64", "S * S", "out")],
        gsize=[round_up("S * S")], local=L1, reference=_ref_lk, make_inputs=_inputs_lk)


# --- census stereo: Hamming cost, winner takes all ----------------------------------------------------------------------
def _census5(img: np.ndarray) -> np.ndarray:
    """24-bit 5x5 census signatures (bit set where the neighbour is darker than the centre), edges replicated."""
    h, w = img.shape
    pad = np.pad(img, 2, mode="edge")
    out = np.zeros((h, w), dtype=np.uint64)
    bit = 0
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if dy == 0 and dx == 0:
                continue
            out |= (pad[2 + dy:2 + dy + h, 2 + dx:2 + dx + w] < img).astype(np.uint64) << np.uint64(bit)
            bit += 1
    return out.astype(np.uint32)


def _inputs_census(rng, sz):
    """A rectified pair of 8-bit images: random texture (blurred noise) in fronto-parallel layers at disparities
    2 .. ndisp + 4 (some beyond the search range), a few textureless patches; the right image is the left one
    shifted per layer, plus noise, each then census-transformed."""
    w, h, nd = sz["S"], sz["S"] // 2, sz["D"]
    tex = rng.uniform(0, 255, (h, w + nd + 8))
    tex = (tex + np.roll(tex, 1, 1) + np.roll(tex, 1, 0)) / 3.0
    disp = np.full((h, w), int(rng.integers(2, 6)))
    for _ in range(6):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        disp[y0:y0 + int(rng.integers(8, h)), x0:x0 + int(rng.integers(8, w // 2))] = rng.integers(2, nd + 5)
    xx = np.arange(w)[None, :] + nd + 4
    left = tex[np.arange(h)[:, None], xx]
    right = np.empty_like(left)
    for y in range(h):  # right(x) = left(x + d): sample the texture at x + d
        right[y] = tex[y, np.clip(xx[0] + disp[y], 0, w + nd + 7)]
    for _ in range(3):
        x0, y0, s = rng.integers(0, w), rng.integers(0, h), int(rng.integers(4, 20))
        left[y0:y0 + s, x0:x0 + s] = right[y0:y0 + s, x0:x0 + s] = 128.0
    left = np.rint(left + rng.normal(0, 2.0, left.shape))
    right = np.rint(right + rng.normal(0, 2.0, right.shape))
    return {"left": _census5(left), "right": _census5(right)}


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _ref_census(inp, sz):
    w, h, nd, a = sz["S"], sz["S"] // 2, sz["D"], int(inp["agg"])
    lc = np.asarray(inp["left"], dtype=np.uint32).reshape(h, w)
    rc = np.asarray(inp["right"], dtype=np.uint32).reshape(h, w)
    big = np.iinfo(np.int64).max
    cost = np.full((nd, h, w), big, dtype=np.int64)
    for d in range(nd):
        x = (lc[:, d:] ^ rc[:, :w - d]).view(np.uint8).reshape(h, w - d, 4)
        ham = _POP8[x].sum(axis=2)
        s = _box_sum(ham, a)  # centred at rows a .. h - a - 1, cols d + a .. w - a - 1
        cost[d, a:h - a, d + a:w - a] = s
    best = cost.min(axis=0)
    disp = np.where(best == big, -1, cost.argmin(axis=0))
    return {"disp": disp, "cost": np.where(best == big, 0xFFFFFFFF, best)}


def census_wta_disparity() -> KernelSpec:
    return _spec(
        "census_wta_disparity",
        idiom="census stereo matching: popcount of XORed uint signatures over a window per disparity, winner takes all",
        sizes={"S": pow2(7, 12), "D": [16, 64]}, check={"S": 128, "D": 16},
        constraints=["S * (S // 2) * D <= 2**26"],
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "S // 2"),
              Arg("ndisp", "scalar", "int32", "D"), Arg("agg", "scalar", "int32", "1"),
              Arg("left", "buffer", "uint32", "S * (S // 2)"), Arg("right", "buffer", "uint32", "S * (S // 2)"),
              Arg("disp", "buffer", "int32", "S * (S // 2)", "out"),
              Arg("cost", "buffer", "uint32", "S * (S // 2)", "out")],
        gsize=[round_up("S * (S // 2)")], local=L1, reference=_ref_census, make_inputs=_inputs_census)


# --- HOG cell histograms, a work-group per cell -------------------------------------------------------------------------
def _inputs_hog(rng, sz):
    """An 8-bit greyscale scene (flat shapes, gradients, noise), whole grey levels in float."""
    return {"img": np.rint(255.0 * _scene(rng, sz["S"], sz["S"]))}


def _ref_hog(inp, sz):
    n, cell, nb = sz["S"], sz["C"], int(inp["nbins"])
    img = _f64(inp["img"]).reshape(n, n)
    p = np.pad(img, 1, mode="edge")
    gx, gy = p[1:-1, 2:] - p[1:-1, :-2], p[2:, 1:-1] - p[:-2, 1:-1]
    mag = np.sqrt(gx * gx + gy * gy)
    ang = np.degrees(np.arctan2(gy, gx)) % 180.0
    pos = ang / (180.0 / nb) - 0.5
    b0 = np.floor(pos)
    frac = pos - b0
    b0 = b0.astype(np.int64) % nb
    b1 = (b0 + 1) % nb
    v0, v1 = np.floor(mag * (1 - frac) * 256 + 0.5), np.floor(mag * frac * 256 + 0.5)
    cid = (np.arange(n)[:, None] // cell) * (n // cell) + np.arange(n)[None, :] // cell
    hist = np.zeros((n // cell) ** 2 * nb)
    nz = mag > 0
    np.add.at(hist, (cid * nb + b0)[nz], v0[nz])
    np.add.at(hist, (cid * nb + b1)[nz], v1[nz])
    return {"hist": hist / 256.0}


def hog_cell_bins_local() -> KernelSpec:
    return _spec(
        "hog_cell_bins_local", tol=(1e-5, 0.05),
        idiom="HOG cell histograms: a work-group per cell, atan2 orientation votes split over two bins, local atomics",
        sizes={"S": pow2(7, 11), "C": [8, 16]}, check={"S": 128, "C": 8},
        args=[Arg("width", "scalar", "int32", "S"), Arg("height", "scalar", "int32", "S"),
              Arg("cell", "scalar", "int32", "C"), Arg("nbins", "scalar", "int32", "9"),
              Arg("img", "buffer", "float32", "S * S"),
              Arg("hist", "buffer", "float32", "(S // C)**2 * 9", "out")],
        gsize=["256 * min((S // C)**2, 2048)"], local=L1, reference=_ref_hog, make_inputs=_inputs_hog)


# --- Viola-Jones cascade on an integral image ---------------------------------------------------------------------------


BUILDERS = (harris_response_win_2d, nms_fast_iou_class, lk_flow_window_fp64, census_wta_disparity,
            hog_cell_bins_local)
