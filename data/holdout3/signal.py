"""Holdout3 kernels: image and signal processing (demosaicing, wavelets, blur, decimation, resampling)."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import FP64, L1, L2, SUMS, _f64, _spec, round_up  # noqa: F401

IMAGE = [64, 512, 2048, 8192]


def _inputs_raw(rng, sz):
    return {"raw": rng.integers(0, 256, sz["W"] * sz["H"], dtype=np.uint8)}


def _ref_bayer(inp, sz):
    w, h = sz["W"], sz["H"]
    p = np.pad(inp["raw"].reshape(h, w).astype(np.int64), 1, mode="reflect")  # -1 -> 1, like mirror()
    at = lambda dx, dy: p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]  # noqa: E731
    c = at(0, 0)
    horiz, vert = at(-1, 0) + at(1, 0), at(0, -1) + at(0, 1)
    diag = at(-1, -1) + at(1, -1) + at(-1, 1) + at(1, 1)
    four_cross, four_diag = (horiz + vert + 2) >> 2, (diag + 2) >> 2
    two_h, two_v = (horiz + 1) >> 1, (vert + 1) >> 1
    ey = (np.arange(h) % 2 == 0)[:, None]
    ex = (np.arange(w) % 2 == 0)[None, :]
    rs, gr, gb, bs = ey & ex, ey & ~ex, ~ey & ex, ~ey & ~ex
    r = np.select([rs, gr, gb, bs], [c, two_h, two_v, four_diag])
    g = np.select([rs, gr, gb, bs], [four_cross, c, c, four_cross])
    b = np.select([rs, gr, gb, bs], [four_diag, two_v, two_h, c])
    return {"rgb": np.stack([r, g, b], axis=-1)}


def bayer_rggb_bilinear() -> KernelSpec:
    return _spec(
        "bayer_rggb_bilinear", precision="uint8",
        idiom="RGGB Bayer demosaic by bilinear averages: 4-way parity branch, mirrored borders, 3-byte RGB writes",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 98, "H": 42}, constraints=["W * H <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("raw", "buffer", "uint8", "W * H"), Arg("rgb", "buffer", "uint8", "3 * W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_bayer, make_inputs=_inputs_raw)


def _ref_haar(inp, sz):
    w, h = sz["W"], sz["H"]
    s = _f64(inp["src"]).reshape(h, w)
    a, b, c, d = s[0::2, 0::2], s[0::2, 1::2], s[1::2, 0::2], s[1::2, 1::2]
    top = np.hstack([0.5 * (a + b + c + d), 0.5 * (a - b + c - d)])
    bottom = np.hstack([0.5 * (a + b - c - d), 0.5 * (a - b - c + d)])
    return {"dst": np.vstack([top, bottom])}


def haar2d_level_fp64() -> KernelSpec:
    return _spec(
        "haar2d_level_fp64", precision="fp64",
        idiom="one 2-D Haar wavelet level in fp64: a 2x2 block per item, four writes into the four quadrants",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 100, "H": 36}, constraints=["W * H <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("src", "buffer", "float64", "W * H"), Arg("dst", "buffer", "float64", "W * H", "out")],
        gsize=[round_up("W // 2", 16), round_up("H // 2", 16)], local=L2, reference=_ref_haar, tol=FP64)


def _ref_gauss(inp, sz):
    w, h, r = sz["W"], sz["H"], sz["R"]
    sigma = float(inp["sigma"])
    src = _f64(inp["src"]).reshape(h, w)
    k = np.arange(-r, r + 1)
    wts = np.exp(-(k * k) / (2.0 * sigma * sigma))
    cols = np.clip(np.arange(w)[:, None] + k[None, :], 0, w - 1)
    return {"dst": (src[:, cols] * wts).sum(axis=-1) / wts.sum()}


def gauss_row_halo_local() -> KernelSpec:
    return _spec(
        "gauss_row_halo_local",
        idiom="separable Gaussian blur, row pass: strip + halo in a launch-sized __local array, exp weights per tap",
        sizes={"W": [256, 2048, 8192], "H": [64, 1024, 4096], "R": [2, 8, 24]}, check={"W": 300, "H": 10, "R": 5},
        constraints=["W * H * (2 * R + 1) <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("radius", "scalar", "int32", "R"), Arg("sigma", "scalar", "float32", "R / 2.5"),
              Arg("src", "buffer", "float32", "W * H"), Arg("dst", "buffer", "float32", "W * H", "out"),
              Arg("tile", "local", "float32", "(l0 + 2 * R) * l1")],
        gsize=[round_up("W", 256), round_up("H", 4)], local=[[64, 4], [256, 1]],
        reference=_ref_gauss, tol=(1e-4, 1e-5))


def _inputs_fir(rng, sz):
    t, m = sz["T"], sz["M"]
    n = np.arange(t) - (t - 1) / 2.0
    taps = np.sinc(n / m) * np.hamming(t) / m  # windowed-sinc low-pass at the new Nyquist rate
    x = np.sin(0.01 * np.arange(sz["n"] * m + t - 1)) + 0.3 * rng.standard_normal(sz["n"] * m + t - 1)
    return {"taps": taps / taps.sum(), "x": x}


def _ref_fir(inp, sz):
    n, t, m = sz["n"], sz["T"], sz["M"]
    x, taps = _f64(inp["x"]), _f64(inp["taps"])
    windows = (np.arange(n) * m + t - 1)[:, None] - np.arange(t)[None, :]
    return {"y": (x[windows] * taps).sum(axis=1)}


def fir_decimate() -> KernelSpec:
    return _spec(
        "fir_decimate",
        idiom="FIR low-pass then decimation: item i convolves the window ending at i*M, taps in __constant, mad",
        sizes={"n": [2**12, 2**15, 2**18, 2**21, 2**24], "T": [15, 63], "M": [2, 8]},
        check={"n": 1000, "T": 15, "M": 3}, constraints=["n * T <= 2**29"],
        args=[Arg("nout", "scalar", "int32", "n"), Arg("ntaps", "scalar", "int32", "T"),
              Arg("factor", "scalar", "int32", "M"), Arg("x", "buffer", "float32", "n * M + T - 1"),
              Arg("taps", "buffer", "float32", "T"), Arg("y", "buffer", "float32", "n", "out")],
        gsize=[round_up("n")], local=[[256], [64]], reference=_ref_fir, make_inputs=_inputs_fir, tol=SUMS)


def _inputs_rgba(rng, sz):
    return {"src": rng.integers(0, 2**32, 4 * sz["OW"] * sz["OH"], dtype=np.uint64).astype(np.uint32)}


def _ref_down(inp, sz):
    ow, oh = sz["OW"], sz["OH"]
    bytes_ = inp["src"].reshape(2 * oh, 2 * ow).view(np.uint8).reshape(2 * oh, 2 * ow, 4).astype(np.uint32)
    s = bytes_[0::2, 0::2] + bytes_[0::2, 1::2] + bytes_[1::2, 0::2] + bytes_[1::2, 1::2]
    mean = ((s + 2) >> 2).astype(np.uint8)  # little-endian: byte 0 is the low byte (R)
    return {"dst": np.ascontiguousarray(mean).view(np.uint32).reshape(oh, ow)}


def down2x2_rgba_u32() -> KernelSpec:
    return _spec(
        "down2x2_rgba_u32", precision="uint32",
        idiom="2x2 box downsample of RGBA8 packed in uint: shift/mask unpack per channel, rounded mean, repack",
        sizes={"OW": [32, 256, 1024, 4096, 8192], "OH": [32, 256, 1024, 4096, 8192]},
        check={"OW": 50, "OH": 20}, constraints=["OW * OH <= 2**25"],
        args=[Arg("out_w", "scalar", "int32", "OW"), Arg("out_h", "scalar", "int32", "OH"),
              Arg("src", "buffer", "uint32", "4 * OW * OH"), Arg("dst", "buffer", "uint32", "OW * OH", "out")],
        gsize=[round_up("OW", 32), round_up("OH", 16)], local=L2, reference=_ref_down, make_inputs=_inputs_rgba)


def _inputs_labels(rng, sz):
    w, h = sz["W"], sz["H"]
    blocks = rng.integers(0, 1000, ((h + 7) // 8, (w + 7) // 8), dtype=np.int32)  # 8x8 regions of one label
    return {"labels": np.kron(blocks, np.ones((8, 8), dtype=np.int32))[:h, :w]}


def _ref_rotate(inp, sz):
    w, h = sz["W"], sz["H"]
    c, s = float(inp["cos_t"]), float(inp["sin_t"])
    cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)
    dy, dx = np.mgrid[0:h, 0:w].astype(np.float64)
    dx, dy = dx - cx, dy - cy
    ix = np.floor(c * dx + s * dy + cx + 0.5).astype(np.int64)
    iy = np.floor(-s * dx + c * dy + cy + 0.5).astype(np.int64)
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    lab = inp["labels"].reshape(h, w)
    return {"out": np.where(inside, lab[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)], int(inp["fill"]))}


def rotate_nearest_int32() -> KernelSpec:
    return _spec(
        "rotate_nearest_int32", precision="int32",
        idiom="int32 label map rotated about its centre: inverse mapping, round-to-nearest lookup, fill outside",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 72, "H": 40}, constraints=["W * H <= 2**25"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("cos_t", "scalar", "float32", "0.9230350256"), Arg("sin_t", "scalar", "float32", "0.3847158849"),
              Arg("fill", "scalar", "int32", "-1"), Arg("labels", "buffer", "int32", "W * H"),
              Arg("out", "buffer", "int32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_rotate, make_inputs=_inputs_labels)


#: this group's builders, in the order of ``specs()``
BUILDERS = (bayer_rggb_bilinear, haar2d_level_fp64, gauss_row_halo_local, fir_decimate, down2x2_rgba_u32,
            rotate_nearest_int32)
