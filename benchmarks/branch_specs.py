"""A check of branch shares (docs/ANALYSIS.md "Branch shares"): three kernels written for it, each with one branch
on data, on inputs where a known share ``PCT``% of the elements pass the condition, laid out at random or sorted
(the passing elements contiguous). Measured by the campaign harness, predicted with and without the share given
(``python -m benchmarks.branch_check``):

- ``filter_heavy``: ``if (v < t) return;`` before 256 dependent FMAs (the return is taken by 1 − PCT/100);
- ``select_arms``: ``if (v > t)`` 256 FMAs ``else`` one multiply (taken by PCT/100);
- ``count_atomic``: ``if (v > t) atomic_inc(count)`` on one counter (taken by PCT/100).

Written for this check, not a holdout (its ids start ``brcheck.``; no training list names its folders). Where the
passing elements are spread at random, a GPU warp runs an arm when any of its lanes takes it, so the time follows
the share of warps with a passing lane, which no share of elements tells::

    python -m kgraph.data.harness.campaign --device nvidia --specs benchmarks.branch_specs:specs \\
        --budget-s 150 --out data/datasets/brcheck-nvidia-h200
"""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg
from kgraph.data.handwritten import kernel_spec, pow2

PREFIX = "brcheck"
ITERS = 256
SOURCES = {
    "filter_heavy": """__kernel void filter_heavy(__global const float *x, __global float *y, const float t,
                           const int iters, const int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    if (v < t) return;
    float acc = v;
    for (int k = 0; k < iters; k++) acc = fma(acc, 0.999f, 0.5f);
    y[i] = acc;
}
""",
    "select_arms": """__kernel void select_arms(__global const float *x, __global float *y, const float t,
                          const int iters, const int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    float acc = v;
    if (v > t) {
        for (int k = 0; k < iters; k++) acc = fma(acc, 0.999f, 0.5f);
    } else {
        acc = acc * 2.0f;
    }
    y[i] = acc;
}
""",
    "count_atomic": """__kernel void count_atomic(__global const float *x, __global int *count, const float t, const int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    if (x[i] > t) atomic_inc(count);
}
""",
}


def _fma_chain(v: np.ndarray, iters: int) -> np.ndarray:
    acc = v.astype(np.float32)
    for _ in range(iters):
        acc = (acc * np.float32(0.999) + np.float32(0.5)).astype(np.float32)
    return acc


def _reference(name: str):
    def reference(inp, sz):
        x, t = np.asarray(inp["x"], np.float32), np.float32(100 - sz["PCT"])
        if name == "count_atomic":
            return {"count": np.array([int((x > t).sum())], np.int32)}
        heavy = _fma_chain(x, ITERS)
        if name == "filter_heavy":
            return {"y": np.where(x < t, np.float32(0), heavy).astype(np.float32)}
        return {"y": np.where(x > t, heavy, x * np.float32(2.0)).astype(np.float32)}
    return reference


def _inputs(name: str, sort: bool):
    def make(rng, sz):
        n, pct = sz["N"], sz["PCT"]
        passing = np.zeros(n, bool)  # exactly round(n * pct / 100) elements above the threshold 100 - pct
        passing[rng.permutation(n)[: int(round(n * pct / 100))]] = True
        if sort:
            passing = np.sort(passing)
        low, high = rng.uniform(0, 100 - pct, n), rng.uniform(100 - pct, 100, n)
        x = np.where(passing, np.maximum(high, np.nextafter(np.float32(100 - pct), np.float32(100))), low)
        return {"x": x.astype(np.float32)}
    return make


def shares(kernel_name: str, pct: float, lanes: int = 1) -> list[float]:
    """The share of executions taking each undecided branch of ``kernel_name``, in line order, at ``pct``% passing
    elements spread at random; ``lanes`` > 1: the share of groups of that many lanes (a warp) that run the arm, which
    a GPU's time follows (the heavy arm runs where any lane passes; the return skips the work only where all return).
    The atomic of ``count_atomic`` runs per lane either way."""
    p = pct / 100
    if kernel_name == "filter_heavy":
        return [(1 - p) ** lanes]
    return [p if kernel_name == "count_atomic" else 1 - (1 - p) ** lanes]


def specs():
    """Three kernels x two layouts (``random``, ``sorted``), ``N`` elements of which ``PCT``% pass."""
    out = []
    for name, source in SOURCES.items():
        args = [Arg("x", "buffer", "float32", "N"),
                Arg("count", "buffer", "int32", "1", "out") if name == "count_atomic" else
                Arg("y", "buffer", "float32", "N", "out"), Arg("t", "scalar", "float32", "100 - PCT")]
        args += ([] if name == "count_atomic" else [Arg("iters", "scalar", "int32", str(ITERS))])
        args.append(Arg("n", "scalar", "int32", "N"))
        for layout in ("random", "sorted"):
            spec = kernel_spec(PREFIX, source, name, sizes={"N": pow2(16, 24, 2), "PCT": [1, 10, 50, 90, 99]},
                               check={"N": 4096, "PCT": 10}, args=args, gsize=["N"], local=[[256]],
                               reference=_reference(name), make_inputs=_inputs(name, layout == "sorted"),
                               tol=(1e-4, 1e-4), idiom=f"a branch on data, {layout} layout")
            spec.kernel_id = spec.family = f"{PREFIX}.{name}_{layout}"
            out.append(spec)
    return out
