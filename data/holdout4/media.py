"""Holdout4 kernels: image, video and audio processing as application programmers write them: NV12 decoding to
packed RGBA, a bilateral filter with a spatial-weight table in local memory, a biquad IIR filter per audio
channel, grey-scale erosion with an early exit, a running-sum box filter per row and a green-screen key mask."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, SUMS, _f64, _spec, pow2, round_up

IMAGE = [64, 512, 2048, 8192]


# --- NV12 (Y plane + interleaved UV) to RGBA8 packed in uint ----------------------------------------------------
def _inputs_nv12(rng, sz):
    w, h = sz["W"], sz["H"]
    return {"y_plane": rng.integers(0, 256, w * h, dtype=np.uint8),
            "uv_plane": rng.integers(0, 256, w * h // 2, dtype=np.uint8)}


def _ref_nv12(inp, sz):
    w, h = sz["W"], sz["H"]
    c = 298 * (inp["y_plane"].reshape(h, w).astype(np.int64) - 16) + 128
    uv = inp["uv_plane"].reshape(h // 2, w // 2, 2).astype(np.int64) - 128
    uv = uv.repeat(2, axis=0).repeat(2, axis=1)  # one (U, V) pair per 2x2 block
    d, e = uv[..., 0], uv[..., 1]
    byte = lambda v: np.clip(v >> 8, 0, 255).astype(np.uint32)  # noqa: E731 - arithmetic shift, like the kernel
    r, g, b = byte(c + 409 * e), byte(c - 100 * d - 208 * e), byte(c + 516 * d)
    return {"rgba": r | (g << 8) | (b << 16) | np.uint32(0xFF000000)}


def nv12_to_rgba_u32() -> KernelSpec:
    return _spec(
        "nv12_to_rgba_u32", precision="uint32",
        idiom="NV12 to RGBA8: full-res Y, half-res interleaved UV at (y/2, x&~1), 8.8 fixed-point BT.601, OR-packed uint",
        sizes={"W": IMAGE, "H": IMAGE}, check={"W": 98, "H": 42}, constraints=["W * H <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("y_plane", "buffer", "uint8", "W * H"), Arg("uv_plane", "buffer", "uint8", "W * H // 2"),
              Arg("rgba", "buffer", "uint32", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_nv12, make_inputs=_inputs_nv12)


# --- bilateral filter, spatial weights in a __local table -------------------------------------------------------
def _inputs_bilateral(rng, sz):
    w, h = sz["W"], sz["H"]
    flat = rng.uniform(0.0, 1.0, ((h + 15) // 16, (w + 15) // 16))  # flat 16x16 patches with edges between
    img = np.kron(flat, np.ones((16, 16)))[:h, :w]
    return {"src": img + 0.05 * rng.standard_normal((h, w))}


def _ref_bilateral(inp, sz):
    w, h, r = sz["W"], sz["H"], sz["R"]
    ss, sr = float(inp["sigma_s"]), float(inp["sigma_r"])
    src = _f64(inp["src"]).reshape(h, w)
    pad = np.pad(src, r, mode="edge")
    acc, wsum = np.zeros_like(src), np.zeros_like(src)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            v = pad[r + dy:r + dy + h, r + dx:r + dx + w]
            wt = np.exp(-(dx * dx + dy * dy) / (2 * ss * ss)) * np.exp(-(v - src) ** 2 / (2 * sr * sr))
            acc += wt * v
            wsum += wt
    return {"dst": acc / wsum}


def bilateral_grey_local() -> KernelSpec:
    return _spec(
        "bilateral_grey_local",
        idiom="bilateral filter, runtime radius: group fills a __local spatial-weight table, range weight exp per tap",
        sizes={"W": [256, 1024, 4096], "H": [256, 1024, 4096], "R": [1, 2, 4]}, check={"W": 70, "H": 37, "R": 2},
        constraints=["W * H * (2 * R + 1) * (2 * R + 1) <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("radius", "scalar", "int32", "R"), Arg("sigma_s", "scalar", "float32", "0.5 * R + 0.5"),
              Arg("sigma_r", "scalar", "float32", "0.1"), Arg("src", "buffer", "float32", "W * H"),
              Arg("dst", "buffer", "float32", "W * H", "out"),
              Arg("spatial", "local", "float32", "(2 * R + 1) * (2 * R + 1)")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_bilateral,
        make_inputs=_inputs_bilateral, tol=(1e-4, 1e-5))


# --- biquad IIR, one work-item per audio channel ----------------------------------------------------------------
def _inputs_biquad(rng, sz):
    c, t = sz["C"], sz["T"]
    w0 = 2 * np.pi * rng.uniform(0.01, 0.25, c)  # RBJ cookbook low-pass per channel
    alpha = np.sin(w0) / (2 * rng.uniform(0.5, 2.0, c))
    cw = np.cos(w0)
    coef = np.stack([(1 - cw) / 2, 1 - cw, (1 - cw) / 2, -2 * cw, 1 - alpha], axis=1) / (1 + alpha)[:, None]
    tone = np.sin(np.outer(np.arange(t), rng.uniform(0.005, 0.5, c)))
    return {"coef": coef, "in": 0.5 * tone + 0.3 * rng.standard_normal((t, c))}  # frame-major, interleaved


def _ref_biquad(inp, sz):
    b0, b1, b2, a1, a2 = _f64(inp["coef"]).reshape(sz["C"], 5).T
    x = _f64(inp["in"]).reshape(sz["T"], sz["C"])
    y = np.empty_like(x)
    z1, z2 = np.zeros(sz["C"]), np.zeros(sz["C"])
    for t in range(sz["T"]):
        y[t] = b0 * x[t] + z1
        z1, z2 = b1 * x[t] - a1 * y[t] + z2, b2 * x[t] - a2 * y[t]
    return {"out": y}


def biquad_df2t_channels() -> KernelSpec:
    return _spec(
        "biquad_df2t_channels",
        idiom="biquad IIR (transposed DF-II) per audio channel: sequential loop over interleaved frames, two states",
        sizes={"C": [16, 128, 1024, 8192], "T": [2048, 16384, 131072]}, check={"C": 37, "T": 500},
        constraints=["C * T <= 2**24"],
        args=[Arg("channels", "scalar", "int32", "C"), Arg("frames", "scalar", "int32", "T"),
              Arg("coef", "buffer", "float32", "5 * C"), Arg("in", "buffer", "float32", "C * T"),
              Arg("out", "buffer", "float32", "C * T", "out")],
        gsize=[round_up("C")], local=L1, reference=_ref_biquad, make_inputs=_inputs_biquad, tol=SUMS)


# --- grey-scale erosion by a square, early exit at 0 ------------------------------------------------------------
def _inputs_erode(rng, sz):
    n = sz["W"] * sz["H"]
    img = rng.integers(30, 256, n)
    img[rng.random(n) < 0.002] = 0  # dark specks: some windows reach 0 and stop early
    return {"src": img.astype(np.uint8)}


def _ref_erode(inp, sz):
    w, h, r = sz["W"], sz["H"], sz["R"]
    pad = np.pad(inp["src"].reshape(h, w), r, mode="constant", constant_values=255)
    rows = np.min([pad[:, r + dx:r + dx + w] for dx in range(-r, r + 1)], axis=0)  # a square is separable
    return {"dst": np.min([rows[r + dy:r + dy + h] for dy in range(-r, r + 1)], axis=0)}


def erode_square_uchar() -> KernelSpec:
    return _spec(
        "erode_square_uchar", precision="uint8",
        idiom="grey erosion by a (2r+1)^2 square: window cut at the border, uchar min, row loop stops once min is 0",
        sizes={"W": [128, 1024, 8192], "H": [128, 1024, 8192], "R": [1, 3, 7]}, check={"W": 90, "H": 40, "R": 2},
        constraints=["W * H * (2 * R + 1) * (2 * R + 1) <= 2**28"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("radius", "scalar", "int32", "R"), Arg("src", "buffer", "uint8", "W * H"),
              Arg("dst", "buffer", "uint8", "W * H", "out")],
        gsize=[round_up("W", 32), round_up("H", 16)], local=L2, reference=_ref_erode, make_inputs=_inputs_erode)


# --- box filter along rows by a running sum, int32 ---------------------------------------------------------------
def _inputs_depth(rng, sz):
    w, h = sz["W"], sz["H"]
    ramp = np.linspace(600, 6000, w)[None, :] + rng.integers(0, 3000, (h, 1))  # a receding floor per row
    return {"src": (ramp + rng.normal(0, 40, (h, w))).astype(np.int32)}


def _ref_box_rows(inp, sz):
    w, h, r = sz["W"], sz["H"], sz["R"]
    n = 2 * r + 1
    pad = np.pad(inp["src"].reshape(h, w).astype(np.int64), ((0, 0), (r, r)), mode="edge")
    cs = np.concatenate([np.zeros((h, 1), np.int64), np.cumsum(pad, axis=1)], axis=1)
    return {"dst": (cs[:, n:] - cs[:, :-n] + n // 2) // n}


def box_rows_running_int() -> KernelSpec:
    return _spec(
        "box_rows_running_int", precision="int32",
        idiom="horizontal box filter, one item per row: sliding int32 window sum (add entering, drop leaving), rounded",
        sizes={"W": [512, 4096, 32768], "H": [256, 2048, 16384], "R": [3, 25]}, check={"W": 300, "H": 45, "R": 4},
        constraints=["W * H <= 2**26"],
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", "H"),
              Arg("radius", "scalar", "int32", "R"), Arg("src", "buffer", "int32", "W * H"),
              Arg("dst", "buffer", "int32", "W * H", "out")],
        gsize=[round_up("H")], local=L1, reference=_ref_box_rows, make_inputs=_inputs_depth)


# --- green-screen key: chroma distance, smoothstep alpha, atomic count ------------------------------------------
def _inputs_key(rng, sz):
    n = sz["N"]
    green = np.stack([rng.integers(0, 70, n), rng.integers(150, 256, n), rng.integers(0, 70, n)], axis=1)
    other = rng.integers(0, 256, (n, 3))
    rgb = np.where((rng.random(n) < 0.6)[:, None], green, other)  # mostly screen, some foreground
    return {"rgba": np.column_stack([rgb, rng.integers(128, 256, n)]).astype(np.uint8)}


def _ref_key(inp, sz):
    p = _f64(inp["rgba"]).reshape(-1, 4) / 255.0
    cb = -0.168736 * p[:, 0] - 0.331264 * p[:, 1] + 0.5 * p[:, 2]
    cr = 0.5 * p[:, 0] - 0.418688 * p[:, 1] - 0.081312 * p[:, 2]
    inner, outer = float(inp["inner"]), float(inp["outer"])
    dist = np.hypot(cb - float(inp["key_cb"]), cr - float(inp["key_cr"]))
    t = np.clip((dist - inner) / (outer - inner), 0.0, 1.0)
    a = np.where(dist <= inner, 0.0, np.where(dist >= outer, 1.0, t * t * (3 - 2 * t)))
    return {"alpha": a * p[:, 3], "keyed": np.array([np.count_nonzero(dist <= inner)])}


def chroma_key_mask() -> KernelSpec:
    return _spec(
        "chroma_key_mask",
        idiom="green-screen key: uchar4 to CbCr, distance to key, 3-way alpha branch with smoothstep, atomic_inc count",
        sizes={"N": pow2(10, 24, 2) + [2**25]}, check={"N": 3001},
        args=[Arg("npixels", "scalar", "int32", "N"), Arg("key_cb", "scalar", "float32", "-0.331264"),
              Arg("key_cr", "scalar", "float32", "-0.418688"), Arg("inner", "scalar", "float32", "0.0917"),
              Arg("outer", "scalar", "float32", "0.2213"), Arg("rgba", "buffer", "uint8", "4 * N"),
              Arg("alpha", "buffer", "float32", "N", "out"), Arg("keyed", "buffer", "uint32", "1", "out")],
        gsize=[round_up("N")], local=L1, reference=_ref_key, make_inputs=_inputs_key, tol=(1e-4, 1e-5))


#: this group's builders, in the order of ``specs()``
BUILDERS = (nv12_to_rgba_u32, bilateral_grey_local, biquad_df2t_channels, erode_square_uchar, box_rows_running_int,
            chroma_key_mask)
