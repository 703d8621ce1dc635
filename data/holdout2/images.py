"""Holdout2 kernels: 8-bit and float images (colour, compositing, lookup, resampling, filters, blocks)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f32, _f64, _spec, pow2, round_up

IMAGE = [64, 512, 2048, 8192]


def _inputs_rgb(rng, sz):
    return {"rgb": rng.random(3 * sz["W"] * sz["H"], dtype=np.float32)}


def _ref_yuv(inp, sz):
    p = _f64(inp["rgb"]).reshape(-1, 3)
    luma = 0.299 * p[:, 0] + 0.587 * p[:, 1] + 0.114 * p[:, 2]
    return {"y_plane": luma, "u_plane": 0.492 * (p[:, 2] - luma), "v_plane": 0.877 * (p[:, 0] - luma)}


def rgb_to_yuv_planar() -> KernelSpec:
    return _spec(
        "rgb_to_yuv_planar", idiom="interleaved float RGB (stride-3 loads) to three planar YUV outputs",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 80, "H": 48}, constraints=["W * H <= 2**25"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("rgb", "buffer", "float32", "3 * W * H"), Arg("y_plane", "buffer", "float32", "W * H", "out"),
              Arg("u_plane", "buffer", "float32", "W * H", "out"), Arg("v_plane", "buffer", "float32", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_yuv, make_inputs=_inputs_rgb)


def _inputs_blend(rng, sz):
    n = sz["n"]
    return {"fg": rng.integers(0, 256, 4 * n, dtype=np.uint8), "bg": rng.integers(0, 256, 4 * n, dtype=np.uint8)}


def _ref_blend(inp, sz):
    f = inp["fg"].reshape(-1, 4).astype(np.int64)
    b = inp["bg"].reshape(-1, 4).astype(np.int64)
    a = (f[:, 3:4] * int(inp["opacity"]) + 127) // 255
    out = (f * a + b * (255 - a) + 127) // 255
    out[:, 3] = 255
    return {"out": out}


def alpha_blend_uchar4() -> KernelSpec:
    return _spec(
        "alpha_blend_uchar4", precision="uint8", idiom="RGBA 'over' compositing on uchar4, integer /255 rounding",
        sizes={"n": pow2(10, 25, 2) + [2**25]}, check={"n": 3000},
        args=[Arg("npixels", "scalar", "int32", "n"), Arg("opacity", "scalar", "uint8", "200"),
              Arg("fg", "buffer", "uint8", "4 * n"), Arg("bg", "buffer", "uint8", "4 * n"),
              Arg("out", "buffer", "uint8", "4 * n", "out")],
        gsize=[round_up("n")], local=L1, reference=_ref_blend, make_inputs=_inputs_blend)


def _inputs_lut(rng, sz):
    curve = np.round(255.0 * (np.arange(256) / 255.0) ** (1.0 / 2.2))
    return {"lut": curve.astype(np.uint8), "src": rng.integers(0, 256, sz["n"], dtype=np.uint8)}


def _ref_lut(inp, sz):
    return {"dst": inp["lut"][inp["src"]]}


def lut_apply_local() -> KernelSpec:
    return _spec(
        "lut_apply_local", precision="uint8", idiom="256-entry lookup table staged in __local, 16 bytes per item",
        sizes={"n": pow2(12, 26, 2)}, check={"n": 5008}, constraints=["n % 16 == 0"],
        args=[Arg("nbytes", "scalar", "int32", "n"), Arg("lut", "buffer", "uint8", "256"),
              Arg("src", "buffer", "uint8", "n"), Arg("dst", "buffer", "uint8", "n", "out")],
        gsize=[round_up("n // 16")], local=L1, reference=_ref_lut, make_inputs=_inputs_lut)


def _inputs_smooth(rng, sz):
    s = sz["S"]
    ys, xs = np.mgrid[0:s, 0:s].astype(np.float32)
    return {"src": np.sin(xs / 7.0) * np.cos(ys / 5.0) + 0.01 * rng.standard_normal((s, s), dtype=np.float32)}


def _axis_samples(s: int, d: int):
    """Source indices and weights along one axis, in float32 like the kernel."""
    scale = np.float32(s) / np.float32(d)
    f = (np.arange(d, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    f = np.clip(f, np.float32(0.0), np.float32(s - 1)).astype(np.float32)
    i0 = f.astype(np.int64)
    return i0, np.minimum(i0 + 1, s - 1), _f64(f - i0.astype(np.float32))


def _ref_resize(inp, sz):
    s, d = sz["S"], sz["D"]
    src = _f64(inp["src"]).reshape(s, s)
    x0, x1, ax = _axis_samples(s, d)
    y0, y1, ay = _axis_samples(s, d)
    rows = lambda r: (1.0 - ax) * src[r][:, x0] + ax * src[r][:, x1]  # noqa: E731
    return {"dst": (1.0 - ay)[:, None] * rows(y0) + ay[:, None] * rows(y1)}


def bilinear_resize() -> KernelSpec:
    return _spec(
        "bilinear_resize", idiom="bilinear resize, half-pixel centres, clamped float coordinates, 4 gathers",
        sizes={"S": [256, 1024, 4096], "D": [64, 512, 2048, 8192]}, check={"S": 40, "D": 64},
        args=[Arg("sw", "scalar", "int32", "S"), Arg("sh", "scalar", "int32", "S"), Arg("dw", "scalar", "int32", "D"),
              Arg("dh", "scalar", "int32", "D"), Arg("src", "buffer", "float32", "S * S"),
              Arg("dst", "buffer", "float32", "D * D", "out")],
        gsize=["D", "D"], local=L2, reference=_ref_resize, make_inputs=_inputs_smooth, tol=(1e-4, 1e-4))


def _inputs_gray(rng, sz):
    h, w = sz["H"], sz["W"]
    img = 128.0 + 60.0 * np.outer(np.cos(np.arange(h) / 9.0), np.sin(np.arange(w) / 13.0))
    img += rng.normal(0.0, 30.0, (h, w))  # salt-and-pepper-ish noise for the median to remove
    return {"src": np.clip(img, 0, 255).astype(np.uint8)}


def _ref_median(inp, sz):
    w, h = sz["W"], sz["H"]
    img = np.pad(inp["src"].reshape(h, w), 1, mode="edge")
    win = np.stack([img[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)])
    return {"dst": np.sort(win, axis=0)[4]}


def median3x3_rowsort() -> KernelSpec:
    return _spec(
        "median3x3_rowsort", precision="uint8", idiom="3x3 median via per-row min/med/max, private arrays, helper",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 96, "H": 40}, constraints=["W * H <= 2**25"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "uint8", "W * H"), Arg("dst", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_median, make_inputs=_inputs_gray)


def _ref_integral(inp, sz):
    return {"sums": np.cumsum(inp["src"].reshape(sz["H"], sz["W"]).astype(np.int64), axis=0)}


def _inputs_bytes(rng, sz):
    return {"src": rng.integers(0, 256, sz["W"] * sz["H"], dtype=np.uint8)}


def integral_cols_uint() -> KernelSpec:
    return _spec(
        "integral_cols_uint", precision="uint32", idiom="summed-area column pass, one column per item",
        sizes={"W": [64, 256, 1024, 4096, 16384], "H": [64, 1024, 16384, 131072]}, check={"W": 72, "H": 50},
        constraints=["W * H <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "uint8", "W * H"), Arg("sums", "buffer", "uint32", "W * H", "out")],
        gsize=[round_up("W")], local=[[256], [64]], reference=_ref_integral, make_inputs=_inputs_bytes)


def _inputs_frames(rng, sz):
    h, w = sz["H"], sz["W"]
    cur = _inputs_gray(rng, sz)["src"].reshape(h, w)
    ref = np.roll(cur, (1, -2), axis=(0, 1)).astype(np.int64) + rng.integers(-3, 4, (h, w))  # moved + noise
    return {"cur": cur, "ref": np.clip(ref, 0, 255).astype(np.uint8)}


def _ref_sad(inp, sz):
    w, h, r = sz["W"], sz["H"], sz["R"]
    nbx, nby = w // 8, h // 8
    cur = inp["cur"].reshape(h, w).astype(np.int64)[:nby * 8, :nbx * 8]
    ref = inp["ref"].reshape(h, w).astype(np.int64)
    best = np.full((nby, nbx), 2**31 - 1, dtype=np.int64)
    bdx, bdy = np.zeros_like(best), np.zeros_like(best)
    for dy in range(-r, r + 1):
        ry = np.clip(np.arange(nby * 8) + dy, 0, h - 1)
        for dx in range(-r, r + 1):
            rx = np.clip(np.arange(nbx * 8) + dx, 0, w - 1)
            sad = np.abs(cur - ref[np.ix_(ry, rx)]).reshape(nby, 8, nbx, 8).sum(axis=(1, 3))
            better = sad < best
            best[better], bdx[better], bdy[better] = sad[better], dx, dy
    return {"best": np.stack([bdx, bdy, best], axis=-1)}


def sad_block_match() -> KernelSpec:
    return _spec(
        "sad_block_match", precision="uint8", idiom="full-search 8x8 block matching (SAD), runtime search radius",
        sizes={"W": [256, 1024, 2048], "H": [128, 512, 1024], "R": [2, 6, 12]},
        check={"W": 64, "H": 48, "R": 3}, constraints=["W * H * (2 * R + 1) * (2 * R + 1) <= 2**29"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("radius", "scalar", "int32", "R"), Arg("cur", "buffer", "uint8", "W * H"),
              Arg("ref", "buffer", "uint8", "W * H"), Arg("best", "buffer", "int32", "3 * (W // 8) * (H // 8)", "out")],
        gsize=[round_up("W // 8", 16), round_up("H // 8", 16)], local=[[8, 8], [16, 4]], reference=_ref_sad,
        make_inputs=_inputs_frames)


def _dct_basis() -> np.ndarray:
    u, x = np.mgrid[0:8, 0:8]
    basis = 0.5 * np.cos((2 * x + 1) * u * np.pi / 16.0)
    basis[0] = np.sqrt(1.0 / 8.0)
    return basis


def _ref_dct(inp, sz):
    w, h = sz["W"], sz["H"]
    blocks = _f64(inp["src"]).reshape(h // 8, 8, w // 8, 8)
    c = _dct_basis()
    out = np.einsum("vy,aybx,ux->avbu", c, blocks, c)
    return {"dst": out.reshape(h, w)}


def dct8x8_local() -> KernelSpec:
    return _spec(
        "dct8x8_local", idiom="8x8 DCT-II, one 8x8 group per block, three __local tiles, rows then columns",
        sizes={"W": [64, 256, 1024, 2048, 4096, 8192], "H": [64, 256, 1024, 2048, 4096, 8192]},
        check={"W": 40, "H": 24}, constraints=["W * H <= 2**24"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "float32", "W * H"), Arg("dst", "buffer", "float32", "W * H", "out")],
        gsize=["W", "H"], local=[[8, 8]], reference=_ref_dct, tol=SUMS)


def _inputs_life(rng, sz):
    return {"cells": (rng.random(sz["W"] * sz["H"]) < 0.3).astype(np.uint8)}


def _ref_life(inp, sz):
    c = inp["cells"].reshape(sz["H"], sz["W"]).astype(np.int64)
    n = sum(np.roll(c, (dy, dx), axis=(0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1)) - c
    return {"next": ((n == 3) | ((c == 1) & (n == 2))).astype(np.uint8)}


def life_torus_uchar() -> KernelSpec:
    return _spec(
        "life_torus_uchar", precision="uint8", idiom="Game of Life step on bytes, toroidal wrap with %",
        sizes={"W": [64, 256, 1024, 4096, 16384], "H": [64, 256, 1024, 4096, 16384]}, check={"W": 48, "H": 32},
        constraints=["W * H <= 2**26", "W * 64 >= H"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("cells", "buffer", "uint8", "W * H"), Arg("next", "buffer", "uint8", "W * H", "out")],
        gsize=["W", "H"], local=L2, reference=_ref_life, make_inputs=_inputs_life)
