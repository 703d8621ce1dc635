"""Divergent escape-time iterations: Mandelbrot (full view or a boundary zoom) and a Julia set.

``FP_CONTRACT OFF`` keeps every operation IEEE-rounded, so the numpy reference (same operations in
the same precision) gives the exact same iteration counts.
"""
from __future__ import annotations

import numpy as np

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_2D, PRECISIONS, Precision, kernel_id, pow2, render

ESCAPE = """
#pragma OPENCL FP_CONTRACT OFF
#define MAXIT $MAXIT
__kernel void $NAME(const int W, const int H, const $T x0, const $T y0, const $T dx, const $T dy,
                    __global int* iters)
{
    const int px = get_global_id(0);
    const int py = get_global_id(1);
    const $T cr = $CR;
    const $T ci = $CI;
    $T zr = $ZR;
    $T zi = $ZI;
    int it = 0;
    while (it < MAXIT && zr * zr + zi * zi <= 4) {
        const $T t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        ++it;
    }
    iters[py * W + px] = it;
}
"""

VIEWS = {"full": (-2.25, -1.5, 3.0), "zoom": (-0.80, 0.05, 0.1), "julia": (-1.6, -1.2, 3.2)}
JULIA_C = (-0.8, 0.156)


def _reference(prec: Precision, maxit: int, julia: bool):
    def reference(inp, sizes):
        W, H = sizes["W"], sizes["H"]
        t = prec.np.type
        px = np.arange(W, dtype=prec.np)[None, :]
        py = np.arange(H, dtype=prec.np)[:, None]
        gx = (t(inp["x0"]) + px * t(inp["dx"])) * np.ones((H, 1), prec.np)
        gy = (t(inp["y0"]) + py * t(inp["dy"])) * np.ones((1, W), prec.np)
        if julia:
            zr, zi = gx.copy(), gy.copy()
            cr, ci = np.full_like(gx, t(JULIA_C[0])), np.full_like(gy, t(JULIA_C[1]))
        else:
            zr, zi = np.zeros_like(gx), np.zeros_like(gy)
            cr, ci = gx, gy
        it = np.zeros((H, W), np.int32)
        two, four = t(2), t(4)
        for _ in range(maxit):
            alive = zr * zr + zi * zi <= four
            if not alive.any():
                break
            nr = zr * zr - zi * zi + cr
            ni = two * zr * zi + ci
            zr, zi = np.where(alive, nr, zr), np.where(alive, ni, zi)
            it += alive
        return {"iters": it}
    return reference


def _spec(prec: Precision, view: str, maxit: int) -> KernelSpec:
    julia = view == "julia"
    family = "julia" if julia else "mandelbrot"
    x0, y0, span = VIEWS[view]
    coords = {"CR": "x0 + px * dx", "CI": "y0 + py * dy", "ZR": "0", "ZI": "0"}
    if julia:
        coords = {"CR": f"{JULIA_C[0]}{prec.suffix}", "CI": f"{JULIA_C[1]}{prec.suffix}",
                  "ZR": "x0 + px * dx", "ZI": "y0 + py * dy"}
    parts = ([] if julia else [view]) + [f"it{maxit}", prec.name]
    return KernelSpec(
        kernel_id=kernel_id(family, *parts), family=family,
        variant={**({} if julia else {"view": view}), "max_iterations": maxit, "precision": prec.name},
        kernel_name=family, source=render(ESCAPE, prec, NAME=family, MAXIT=maxit, **coords),
        sizes={"W": pow2(6, 13), "H": pow2(6, 13)}, check_sizes={"W": 96, "H": 64}, constraints=[],
        args=[Arg("W", "scalar", "int32", "W"), Arg("H", "scalar", "int32", "H"),
              Arg("x0", "scalar", prec.dtype, str(x0)), Arg("y0", "scalar", prec.dtype, str(y0)),
              Arg("dx", "scalar", prec.dtype, f"{span} / W"), Arg("dy", "scalar", prec.dtype, f"{span} / H"),
              Arg("iters", "buffer", "int32", "W * H", "out")],
        global_size=["W", "H"], local_sizes=LOCAL_2D, reference=_reference(prec, maxit, julia),
        rtol=0.0, atol=0.0)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_spec(prec, view, it) for view in ("full", "zoom") for it in (64, 256, 1024)]
        out += [_spec(prec, "julia", it) for it in (128, 512)]
    return out
