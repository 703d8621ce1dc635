"""Holdout12 kernels, group codec, continued (written by hand; see docs/HOLDOUT12.md): an encoder's SSIM map of a
decoded luma plane against its source in fp64, a Gaussian window of a runtime size placed every `step` samples on
a 2-D (output column, output row) NDRange, the separable taps an argument, weighted means, variances and
covariance of the two uint8 planes; and integer-pel motion estimation of 16x16 macroblocks by full search over
+/- range, a work-group per macroblock (looping by the number of groups) with the block and the clamped reference
window in __local memory, a strided share of the candidates per work-item scored by SAD plus lambda times the
signed Exp-Golomb bits of the vector's difference to a predictor (stopping a SAD once it cannot win), and the
(cost, |dx| + |dy|, raster index) minimum taken by a __local tree of ulong keys, uint32 packed vectors in and out.
Neither uses atomics. Split from :mod:`.codec` to keep each module short; :mod:`.catalog` lists it after that
group."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, _f64, _spec, round_up

# --- SSIM map in fp64, Gaussian window ------------------------------------------------------------------------------
SSIM_SIGMA = 1.5  # ssim_gauss_window_fp64: the Gaussian window's sd in samples (Wang et al.)
SSIM_C1, SSIM_C2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
SSIM_OUT_W = "(W - K) // S + 1"  # ssim_gauss_window_fp64: window positions across and down
SSIM_OUT_H = "(W * 9 // 16 - K) // S + 1"


def _taps(k):
    g = np.exp(-0.5 * ((np.arange(k) - (k - 1) / 2.0) / SSIM_SIGMA) ** 2)
    return g / g.sum()


def _inputs_ssim(rng, sz):
    """A source picture (smooth field, a few hard edges, fine noise) and its decoded version: per 16x16 block a
    loss of detail (a mix towards the block mean, 0 .. 60 %) plus coding noise of sd 0.5 .. 6."""
    w, k = sz["W"], sz["K"]
    h = w * 9 // 16
    y, x = np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32)
    src = 8.0 * rng.standard_normal((h, w), dtype=np.float32) + 120.0
    src += 50.0 * np.outer(np.cos(y / 19.0), np.sin(x / 29.0))
    src += 40.0 * ((x[None, :] + 2.0 * y[:, None]) % 97.0 < 40.0)
    src = np.clip(np.rint(src), 0, 255)
    hb, wb = -(-h // 16), -(-w // 16)
    mean = np.repeat(np.repeat(np.pad(src, ((0, hb * 16 - h), (0, wb * 16 - w)), mode="edge")
                               .reshape(hb, 16, wb, 16).mean((1, 3)), 16, 0), 16, 1)[:h, :w]
    loss = np.repeat(np.repeat(rng.uniform(0.0, 0.6, (hb, wb)).astype(np.float32), 16, 0), 16, 1)[:h, :w]
    sd = np.repeat(np.repeat(rng.uniform(0.5, 6.0, (hb, wb)).astype(np.float32), 16, 0), 16, 1)[:h, :w]
    rec = src + loss * (mean - src) + sd * rng.standard_normal((h, w), dtype=np.float32)
    return {"taps": _taps(k), "src": src, "rec": np.clip(np.rint(rec), 0, 255)}


def _ref_ssim(inp, sz):
    w, k, s = sz["W"], sz["K"], sz["S"]
    h = w * 9 // 16
    g = _f64(inp["taps"])
    g2 = np.outer(g, g)
    x = np.lib.stride_tricks.sliding_window_view(_f64(inp["src"]).reshape(h, w), (k, k))[::s, ::s]
    y = np.lib.stride_tricks.sliding_window_view(_f64(inp["rec"]).reshape(h, w), (k, k))[::s, ::s]
    mx, my = np.einsum("ijab,ab->ij", x, g2), np.einsum("ijab,ab->ij", y, g2)
    vx = np.einsum("ijab,ab->ij", x * x, g2) - mx * mx
    vy = np.einsum("ijab,ab->ij", y * y, g2) - my * my
    cov = np.einsum("ijab,ab->ij", x * y, g2) - mx * my
    c1, c2 = float(inp["c1"]), float(inp["c2"])
    return {"ssim_map": ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))}


def ssim_gauss_window_fp64() -> KernelSpec:
    return _spec(
        "ssim_gauss_window_fp64", tol=FP64, precision="fp64",
        idiom="SSIM map in fp64, 2-D (window column, row): separable Gaussian taps over a runtime window every "
              "`step` samples, weighted means, variances, covariance of two uint8 planes, SSIM ratio",
        sizes={"W": [256, 960, 1920, 3840], "K": [7, 11], "S": [1, 4]},
        check={"W": 160, "K": 11, "S": 1},
        constraints=["(W // S) * (W // S) * K * K <= 2**30"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("win", "scalar", "int32", "K"),
              Arg("step", "scalar", "int32", "S"), Arg("out_w", "scalar", "int32", SSIM_OUT_W),
              Arg("out_h", "scalar", "int32", SSIM_OUT_H), Arg("c1", "scalar", "float64", repr(SSIM_C1)),
              Arg("c2", "scalar", "float64", repr(SSIM_C2)), Arg("taps", "buffer", "float64", "K"),
              Arg("src", "buffer", "uint8", "W * (W * 9 // 16)"), Arg("rec", "buffer", "uint8", "W * (W * 9 // 16)"),
              Arg("ssim_map", "buffer", "float64", f"({SSIM_OUT_W}) * ({SSIM_OUT_H})", "out")],
        gsize=[round_up(SSIM_OUT_W, 32), round_up(SSIM_OUT_H, 16)], local=L2, reference=_ref_ssim,
        make_inputs=_inputs_ssim)


# --- 16x16 full-search motion estimation, a work-group per macroblock ---------------------------------------------
ME_HEIGHT = "W * 9 // 256 * 16"  # me16_sad_window_local: the frame's height (whole macroblocks)
ME_NMB = "W // 16 * (W * 9 // 256)"
ME_LAMBDA = 4  # me16_sad_window_local: the motion-vector cost's weight (x264's at QP ~ 26)
ME_FLAT = 0.15  # me16_sad_window_local: share of 64x64 areas of the reference left flat (ties among vectors)


def _inputs_me(rng, sz):
    """A reference frame (smooth cosine texture plus noise, ME_FLAT of its 64x64 areas flat) and a current
    frame copied from it through a motion field constant over 64x64 regions (vectors up to +/- 1.25 R) with
    sd 3 noise; predictors near each region's vector (+/- 2)."""
    w, r = sz["W"], sz["R"]
    h = w * 9 // 256 * 16
    yy, xx = np.mgrid[0:h, 0:w]
    ref = 128.0 + 45.0 * np.cos(xx / 7.0 + np.sin(yy / 13.0)) + 30.0 * np.cos(yy / 5.0 - xx / 31.0)
    ref += rng.normal(0.0, 6.0, (h, w))
    flat = np.repeat(np.repeat(rng.random((-(-h // 64), -(-w // 64))) < ME_FLAT, 64, 0), 64, 1)[:h, :w]
    ref = np.clip(np.rint(np.where(flat, 100.0, ref)), 0, 255)
    vmax = r + r // 4
    rv = rng.integers(-vmax, vmax + 1, (2, -(-h // 64), -(-w // 64)))
    vx, vy = (np.repeat(np.repeat(v, 64, 0), 64, 1)[:h, :w] for v in rv)
    cur = ref[np.clip(yy + vy, 0, h - 1), np.clip(xx + vx, 0, w - 1)] + rng.normal(0.0, 3.0, (h, w))
    mbv = rv[:, np.arange(h // 16) // 4][:, :, np.arange(w // 16) // 4].reshape(2, -1)
    pm = mbv + rng.integers(-2, 3, mbv.shape)
    return {"cur": np.clip(np.rint(cur), 0, 255), "ref": ref,
            "pmv": ((pm[1] & 0xFFFF) << 16) | (pm[0] & 0xFFFF)}


def _se_bits(v):
    code = np.where(v > 0, 2 * v - 1, -2 * v)
    return 2 * np.floor(np.log2(code + 1)).astype(np.int64) + 1


def _ref_me(inp, sz):
    w, r, lam = int(inp["width"]), int(inp["range"]), int(inp["lambda"])
    h, cols = int(inp["height"]), int(inp["mb_cols"])
    span = 2 * r + 1
    cur = np.asarray(inp["cur"]).reshape(h, w).astype(np.int64)
    ref = np.pad(np.asarray(inp["ref"]).reshape(h, w).astype(np.int64), r, mode="edge")
    pmv = np.asarray(inp["pmv"]).astype(np.uint32)
    pmx, pmy = (pmv & 0xFFFF).astype(np.int16).astype(np.int64), (pmv >> 16).astype(np.int16).astype(np.int64)
    c = np.arange(span * span)
    dy, dx = c // span - r, c % span - r
    mv, cost = np.zeros(pmv.size, dtype=np.uint32), np.zeros(pmv.size, dtype=np.int64)
    for m in range(pmv.size):
        y0, x0 = m // cols * 16, m % cols * 16
        blk = cur[y0:y0 + 16, x0:x0 + 16]
        cand = np.lib.stride_tricks.sliding_window_view(ref[y0:y0 + 16 + 2 * r, x0:x0 + 16 + 2 * r], (16, 16))
        sad = np.abs(cand - blk).sum((2, 3)).reshape(-1)
        cst = sad + lam * (_se_bits(4 * (dx - pmx[m])) + _se_bits(4 * (dy - pmy[m])))
        best = np.lexsort((c, np.abs(dx) + np.abs(dy), cst))[0]
        mv[m] = ((int(dy[best]) & 0xFFFF) << 16) | (int(dx[best]) & 0xFFFF)
        cost[m] = cst[best]
    return {"mv_out": mv, "cost_out": cost}


def me16_sad_window_local() -> KernelSpec:
    return _spec(
        "me16_sad_window_local",
        idiom="16x16 full-search ME, a group per macroblock (num_groups loop): block and clamped reference window "
              "in __local, strided candidates, SAD + lambda * Exp-Golomb MVD bits with early stop, ulong-key tree",
        sizes={"W": [160, 480, 1280, 1920], "R": [4, 8, 16]}, check={"W": 160, "R": 6},
        constraints=[f"({ME_NMB}) * (2 * R + 1) ** 2 <= 2**21"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", ME_HEIGHT),
              Arg("mb_cols", "scalar", "int32", "W // 16"), Arg("nmb", "scalar", "int32", ME_NMB),
              Arg("range", "scalar", "int32", "R"), Arg("lambda", "scalar", "int32", str(ME_LAMBDA)),
              Arg("cur", "buffer", "uint8", f"W * ({ME_HEIGHT})"), Arg("ref", "buffer", "uint8", f"W * ({ME_HEIGHT})"),
              Arg("pmv", "buffer", "uint32", ME_NMB), Arg("mv_out", "buffer", "uint32", ME_NMB, "out"),
              Arg("cost_out", "buffer", "uint32", ME_NMB, "out"), Arg("blk", "local", "uint8", "256"),
              Arg("win", "local", "uint8", "(16 + 2 * R) ** 2"), Arg("red", "local", "uint64", "l0")],
        gsize=[f"min(({ME_NMB} + 3) // 4 * 4, 2048) * 64"], local=L1, reference=_ref_me, make_inputs=_inputs_me)


#: this group's builders, in the order of ``specs()``
BUILDERS = (ssim_gauss_window_fp64, me16_sad_window_local)
