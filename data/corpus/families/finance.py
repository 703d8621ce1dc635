"""Black-Scholes European call and put prices (log, exp, sqrt, erfc), vectorised and coarsened."""
from __future__ import annotations

import numpy as np
from scipy.special import erfc

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render, vec_type

BLACK_SCHOLES = """
#define COARSEN $C
__kernel void black_scholes(const int n, const $T r, const $T v, __global const $V* S,
                            __global const $V* X, __global const $V* T, __global $V* call,
                            __global $V* put)
{
    const int gid = get_global_id(0);
    const int stride = get_global_size(0);
    for (int c = 0; c < COARSEN; ++c) {
        const int i = gid + c * stride;
        const $V s = S[i];
        const $V k = X[i];
        const $V t = T[i];
        const $V sqt = sqrt(t);
        const $V d1 = (log(s / k) + (r + 0.5$F * v * v) * t) / (v * sqt);
        const $V d2 = d1 - v * sqt;
        const $V disc = k * exp(-r * t);
        const $V n1 = 0.5$F * erfc(-d1 * 0.70710678118654752$F);
        const $V n2 = 0.5$F * erfc(-d2 * 0.70710678118654752$F);
        call[i] = s * n1 - disc * n2;
        put[i] = disc * (1.0$F - n2) - s * (1.0$F - n1);
    }
}
"""

R, V = 0.02, 0.3


def _make_inputs(prec: Precision):
    def make_inputs(rng, sizes):
        n = sizes["n"]
        return {"S": rng.uniform(5.0, 30.0, n).astype(prec.np),
                "X": rng.uniform(1.0, 100.0, n).astype(prec.np),
                "T": rng.uniform(0.25, 10.0, n).astype(prec.np)}
    return make_inputs


def _reference(inp, sizes):
    s, k, t = (inp[n].astype(np.float64) for n in ("S", "X", "T"))
    r, v = float(inp["r"]), float(inp["v"])
    d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    n1, n2 = 0.5 * erfc(-d1 / np.sqrt(2.0)), 0.5 * erfc(-d2 / np.sqrt(2.0))
    disc = k * np.exp(-r * t)
    return {"call": s * n1 - disc * n2, "put": disc * (1.0 - n2) - s * (1.0 - n1)}


def _spec(prec: Precision, width: int, coarsen: int) -> KernelSpec:
    per_item = width * coarsen
    rtol, atol = (1e-3, 1e-3) if prec.name == "fp32" else (1e-9, 1e-9)
    return KernelSpec(
        kernel_id=kernel_id("black_scholes", f"v{width}", f"c{coarsen}", prec.name),
        family="black_scholes", variant={"vector_width": width, "coarsen": coarsen, "precision": prec.name},
        kernel_name="black_scholes", source=render(BLACK_SCHOLES, prec, V=vec_type(prec, width), C=coarsen),
        sizes={"n": dense_sizes(10, 26, 4, step=2)}, check_sizes={"n": 8192}, constraints=[f"n % {per_item} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("r", "scalar", prec.dtype, str(R)),
              Arg("v", "scalar", prec.dtype, str(V)), Arg("S", "buffer", prec.dtype, "n"),
              Arg("X", "buffer", prec.dtype, "n"), Arg("T", "buffer", prec.dtype, "n"),
              Arg("call", "buffer", prec.dtype, "n", "out"), Arg("put", "buffer", prec.dtype, "n", "out")],
        global_size=[f"n // {per_item}"], local_sizes=LOCAL_1D, make_inputs=_make_inputs(prec),
        reference=_reference, rtol=rtol, atol=atol)


def specs() -> list[KernelSpec]:
    return [_spec(prec, w, c) for prec in PRECISIONS for w in (1, 2, 4) for c in (1, 4)]
