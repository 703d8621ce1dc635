"""2D convolution (cross-correlation) with clamped borders: filter in __constant memory,
a local-memory tiled version, and separable row / column passes."""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_2D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render

CLAMP = """
int clampi(int v, int n)
{
    return min(max(v, 0), n - 1);
}
"""

CONV2D = CLAMP + """
#define FS $FS
#define RAD (FS / 2)
__kernel void conv2d(const int W, const int H, __global const $T* img, __constant $T* filt,
                     __global $T* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    $T acc = 0;
    for (int fy = 0; fy < FS; ++fy) {
        const int yy = clampi(y + fy - RAD, H);
        for (int fx = 0; fx < FS; ++fx) {
            acc += filt[fy * FS + fx] * img[yy * W + clampi(x + fx - RAD, W)];
        }
    }
    out[y * W + x] = acc;
}
"""

CONV2D_LOCAL = CLAMP + """
#define TS $TS
#define FS $FS
#define RAD (FS / 2)
#define TW (TS + FS - 1)
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void conv2d_local(const int W, const int H, __global const $T* img, __constant $T* filt,
                  __global $T* out)
{
    __local $T tile[TW][TW];
    __local $T f[FS * FS];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x0 = get_group_id(0) * TS - RAD;
    const int y0 = get_group_id(1) * TS - RAD;
    for (int i = ly * TS + lx; i < FS * FS; i += TS * TS) {
        f[i] = filt[i];
    }
    for (int ty = ly; ty < TW; ty += TS) {
        for (int tx = lx; tx < TW; tx += TS) {
            tile[ty][tx] = img[clampi(y0 + ty, H) * W + clampi(x0 + tx, W)];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    $T acc = 0;
    for (int fy = 0; fy < FS; ++fy) {
        for (int fx = 0; fx < FS; ++fx) {
            acc += f[fy * FS + fx] * tile[ly + fy][lx + fx];
        }
    }
    out[get_global_id(1) * W + get_global_id(0)] = acc;
}
"""

# One pass of a separable filter along x (rows) or y (columns).
SEP = CLAMP + """
#define FS $FS
#define RAD (FS / 2)
__kernel void conv_sep_$DIR(const int W, const int H, __global const $T* img, __constant $T* filt,
                          __global $T* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    $T acc = 0;
    for (int k = 0; k < FS; ++k) {
        acc += filt[k] * img[$IDX];
    }
    out[y * W + x] = acc;
}
"""

SIZES = {"W": pow2(6, 14), "H": pow2(6, 14)}
LOCAL_TILE_SIZES = {"W": dense_sizes(6, 14, 2), "H": dense_sizes(6, 14, 2)}  # conv2d_local; holds SIZES
CHECK = {"W": 96, "H": 64}


def _conv_ref(fs2d: bool, fs: int, direction: str = ""):
    def reference(inp, sizes):
        H, W = sizes["H"], sizes["W"]
        img = inp["img"].astype(np.float64).reshape(H, W)
        r = fs // 2
        pad = np.pad(img, r, mode="edge")
        filt = inp["filt"].astype(np.float64)
        out = np.zeros((H, W))
        if fs2d:
            filt = filt.reshape(fs, fs)
            for fy in range(fs):
                for fx in range(fs):
                    out += filt[fy, fx] * pad[fy:fy + H, fx:fx + W]
        else:
            for k in range(fs):
                out += filt[k] * (pad[r:r + H, k:k + W] if direction == "row" else pad[k:k + H, r:r + W])
        return {"out": out}
    return reference


def _args(prec: Precision, nfilt: int) -> list[Arg]:
    return [Arg("W", "scalar", "int32", "W"), Arg("H", "scalar", "int32", "H"),
            Arg("img", "buffer", prec.dtype, "W * H"), Arg("filt", "buffer", prec.dtype, str(nfilt)),
            Arg("out", "buffer", prec.dtype, "W * H", "out")]


def _conv2d(prec: Precision, fs: int, ts: int | None) -> KernelSpec:
    family = "conv2d_local" if ts else "conv2d"
    parts = ([f"t{ts}"] if ts else []) + [f"f{fs}"]
    return KernelSpec(
        kernel_id=kernel_id(family, *parts, prec.name), family=family,
        variant={**({"tile": ts} if ts else {}), "filter": fs, "precision": prec.name},
        kernel_name=family, source=render(CONV2D_LOCAL if ts else CONV2D, prec, FS=fs, TS=ts or 0),
        sizes=LOCAL_TILE_SIZES if ts else SIZES, check_sizes=CHECK,
        constraints=[f"W % {ts} == 0", f"H % {ts} == 0"] if ts else [], args=_args(prec, fs * fs),
        global_size=["W", "H"], local_sizes=[[ts, ts]] if ts else LOCAL_2D,
        reference=_conv_ref(True, fs), rtol=prec.rtol * 10, atol=prec.atol * 10)


def _sep(prec: Precision, direction: str, fs: int) -> KernelSpec:
    idx = "y * W + clampi(x + k - RAD, W)" if direction == "row" else "clampi(y + k - RAD, H) * W + x"
    return KernelSpec(
        kernel_id=kernel_id("conv_sep", direction, f"f{fs}", prec.name), family="conv_sep",
        variant={"direction": direction, "filter": fs, "precision": prec.name},
        kernel_name=f"conv_sep_{direction}", source=render(SEP, prec, FS=fs, DIR=direction, IDX=idx),
        sizes=SIZES, check_sizes=CHECK, constraints=[], args=_args(prec, fs),
        global_size=["W", "H"], local_sizes=LOCAL_2D, reference=_conv_ref(False, fs, direction),
        rtol=prec.rtol * 10, atol=prec.atol * 10)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_conv2d(prec, fs, None) for fs in (3, 5, 7)]
        out += [_conv2d(prec, fs, ts) for ts in (8, 16) for fs in (3, 5)]
        out += [_sep(prec, d, fs) for d in ("row", "col") for fs in (5, 9, 17)]
    return out
