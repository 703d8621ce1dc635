"""Neural-network layers: row softmax and layer norm (one row per work-group, local reductions),
element-wise activations (vectorised) and 2D max pooling on a 3D NDRange (x, y, channel)."""
from __future__ import annotations

import numpy as np
from scipy.special import erf

from ..spec import Arg, KernelSpec
from ..templating import LOCAL_1D, LOCAL_3D, PRECISIONS, Precision, dense_sizes, kernel_id, pow2, render, vec_type

ROWREDUCE = """
$T row_reduce(__local $T* buf, $T v, const int lid, const int is_max)
{
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            buf[lid] = is_max ? fmax(buf[lid], buf[lid + s]) : buf[lid] + buf[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const $T r = buf[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
"""

SOFTMAX = "#define WG $WG\n" + ROWREDUCE + """
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void softmax(const int rows, const int cols, __global const $T* x, __global $T* y)
{
    __local $T buf[WG];
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    __global const $T* xr = x + row * cols;
    $T m = -INFINITY;
    for (int c = lid; c < cols; c += WG) {
        m = fmax(m, xr[c]);
    }
    m = row_reduce(buf, m, lid, 1);
    $T s = 0;
    for (int c = lid; c < cols; c += WG) {
        s += exp(xr[c] - m);
    }
    s = row_reduce(buf, s, lid, 0);
    for (int c = lid; c < cols; c += WG) {
        y[row * cols + c] = exp(xr[c] - m) / s;
    }
}
"""

LAYERNORM = "#define WG $WG\n" + ROWREDUCE + """
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void layernorm(const int rows, const int cols, const $T eps, __global const $T* x,
               __global const $T* gamma, __global const $T* beta, __global $T* y)
{
    __local $T buf[WG];
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    __global const $T* xr = x + row * cols;
    $T s = 0;
    for (int c = lid; c < cols; c += WG) {
        s += xr[c];
    }
    const $T mean = row_reduce(buf, s, lid, 0) / cols;
    $T q = 0;
    for (int c = lid; c < cols; c += WG) {
        const $T d = xr[c] - mean;
        q += d * d;
    }
    const $T inv = rsqrt(row_reduce(buf, q, lid, 0) / cols + eps);
    for (int c = lid; c < cols; c += WG) {
        y[row * cols + c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
    }
}
"""

ACTIVATION = """
__kernel void act_$ACT(const int n, __global const $V* x, __global $V* y)
{
    const int i = get_global_id(0);
    const $V v = x[i];
    y[i] = $EXPR;
}
"""
ACTS = {
    "relu": ("fmax(v, ($V)(0.0$F))", lambda v: np.maximum(v, 0.0)),
    "sigmoid": ("1.0$F / (1.0$F + exp(-v))", lambda v: 1.0 / (1.0 + np.exp(-v))),
    "silu": ("v / (1.0$F + exp(-v))", lambda v: v / (1.0 + np.exp(-v))),
    "gelu": ("0.5$F * v * (1.0$F + erf(v * 0.70710678118654752$F))",
             lambda v: 0.5 * v * (1.0 + erf(v / np.sqrt(2.0)))),
    "tanh": ("tanh(v)", np.tanh),
}

MAXPOOL = """
#define P $P
__kernel void maxpool2d(const int W, const int H, const int Ch, __global const $T* x,
                        __global $T* y)
{
    const int ox = get_global_id(0);
    const int oy = get_global_id(1);
    const int ch = get_global_id(2);
    const int OW = W / P;
    const int OH = H / P;
    __global const $T* plane = x + ch * W * H;
    $T m = plane[(oy * P) * W + ox * P];
    for (int dy = 0; dy < P; ++dy) {
        for (int dx = 0; dx < P; ++dx) {
            m = fmax(m, plane[(oy * P + dy) * W + ox * P + dx]);
        }
    }
    y[(ch * OH + oy) * OW + ox] = m;
}
"""

ROWS = {"rows": dense_sizes(4, 16, 2, step=2), "cols": dense_sizes(6, 14, 1, step=2)}  # hold the pow2 grid


def _rowwise(prec: Precision, kind: str, wg: int) -> KernelSpec:
    def reference(inp, sizes):
        x = inp["x"].astype(np.float64).reshape(sizes["rows"], sizes["cols"])
        if kind == "softmax":
            e = np.exp(x - x.max(axis=1, keepdims=True))
            return {"y": e / e.sum(axis=1, keepdims=True)}
        mean = x.mean(axis=1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
        return {"y": (x - mean) / np.sqrt(var + float(inp["eps"])) * inp["gamma"] + inp["beta"]}

    args = [Arg("rows", "scalar", "int32", "rows"), Arg("cols", "scalar", "int32", "cols")]
    if kind == "layernorm":
        args += [Arg("eps", "scalar", prec.dtype, "1e-5"), Arg("x", "buffer", prec.dtype, "rows * cols"),
                 Arg("gamma", "buffer", prec.dtype, "cols"), Arg("beta", "buffer", prec.dtype, "cols")]
    else:
        args.append(Arg("x", "buffer", prec.dtype, "rows * cols"))
    args.append(Arg("y", "buffer", prec.dtype, "rows * cols", "out"))
    tol = (1e-3, 1e-4) if prec.name == "fp32" else (1e-9, 1e-11)
    return KernelSpec(
        kernel_id=kernel_id(kind, f"wg{wg}", prec.name), family=kind,
        variant={"work_group": wg, "precision": prec.name}, kernel_name=kind,
        source=render(SOFTMAX if kind == "softmax" else LAYERNORM, prec, WG=wg),
        sizes=ROWS, check_sizes={"rows": 24, "cols": 300}, constraints=[], args=args,
        global_size=[f"rows * {wg}"], local_sizes=[[wg]], reference=reference,
        rtol=tol[0], atol=tol[1])


def _activation(prec: Precision, act: str, width: int) -> KernelSpec:
    expr, fn = ACTS[act]
    expr = expr.replace("$V", vec_type(prec, width)).replace("$F", prec.suffix)

    def reference(inp, sizes):
        return {"y": fn(inp["x"].astype(np.float64))}

    tol = (1e-5, 1e-6) if prec.name == "fp32" else (1e-12, 1e-14)
    return KernelSpec(
        kernel_id=kernel_id("activation", act, f"v{width}", prec.name), family="activation",
        variant={"activation": act, "vector_width": width, "precision": prec.name},
        kernel_name=f"act_{act}", source=render(ACTIVATION, prec, ACT=act, V=vec_type(prec, width),
                                               EXPR=expr),
        sizes={"n": dense_sizes(10, 26, 4, step=2)}, check_sizes={"n": 8192}, constraints=[f"n % {width} == 0"],
        args=[Arg("n", "scalar", "int32", "n"), Arg("x", "buffer", prec.dtype, "n"),
              Arg("y", "buffer", prec.dtype, "n", "out")],
        global_size=[f"n // {width}"], local_sizes=LOCAL_1D, reference=reference,
        rtol=tol[0], atol=tol[1])


def _maxpool(prec: Precision, p: int) -> KernelSpec:
    def reference(inp, sizes):
        W, H, C = sizes["W"], sizes["H"], sizes["Ch"]
        x = inp["x"].reshape(C, H // p, p, W // p, p)
        return {"y": x.max(axis=(2, 4))}

    return KernelSpec(
        kernel_id=kernel_id("maxpool2d", f"p{p}", prec.name), family="maxpool2d",
        variant={"pool": p, "precision": prec.name}, kernel_name="maxpool2d",
        source=render(MAXPOOL, prec, P=p),
        sizes={"W": [p * s for s in pow2(4, 10, 2)], "H": [p * s for s in pow2(4, 10, 2)],
               "Ch": pow2(0, 9, 3)},
        check_sizes={"W": 32 * p, "H": 16 * p, "Ch": 8}, constraints=[],
        args=[Arg("W", "scalar", "int32", "W"), Arg("H", "scalar", "int32", "H"),
              Arg("Ch", "scalar", "int32", "Ch"), Arg("x", "buffer", prec.dtype, "W * H * Ch"),
              Arg("y", "buffer", prec.dtype, f"(W // {p}) * (H // {p}) * Ch", "out")],
        global_size=[f"W // {p}", f"H // {p}", "Ch"], local_sizes=LOCAL_3D, reference=reference,
        rtol=0.0, atol=0.0)


def specs() -> list[KernelSpec]:
    out = []
    for prec in PRECISIONS:
        out += [_rowwise(prec, "softmax", wg) for wg in (32, 64, 128, 256)]
        out += [_rowwise(prec, "layernorm", wg) for wg in (64, 128, 256)]
        out += [_activation(prec, act, w) for act in ACTS for w in (1, 4)]
        out += [_maxpool(prec, p) for p in (2, 3)]
    return out
