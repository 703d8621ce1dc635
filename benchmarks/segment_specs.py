"""A check of segment loops' mean trip counts (docs/ANALYSIS.md "Segment loops"): the README's CSR SpMV
(``examples/opencl/spmv_csr.cl``) on matrices whose rows all have the same length and on matrices whose row
lengths are skewed (a few long rows), measured by the campaign harness and predicted with and without the
buffers' lengths (``benchmarks.dataset_eval --buffers --specs benchmarks.segment_specs:specs``).

Written for this check, not a holdout: the kernel is kgraph's own example. Where every row has the mean length, the
mean from the lengths is each row's length; where rows are skewed it is still the mean, but the launch's time
follows the longest rows, which no length tells::

    python -m kgraph.data.harness.campaign --device nvidia --specs benchmarks.segment_specs:specs \\
        --budget-s 120 --out data/datasets/segcheck-nvidia-h200
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from kgraph.data.corpus.spec import Arg
from kgraph.data.handwritten import kernel_spec, pow2

PREFIX = "segcheck"
SOURCE = Path(__file__).resolve().parents[1] / "examples" / "opencl" / "spmv_csr.cl"


def _rows(rng, rows: int, mean: int, skewed: bool) -> np.ndarray:
    """Row lengths summing to exactly ``rows * mean``: all equal, or skewed (lengths ~ 1/u**2 of a uniform u,
    scaled and rounded, the remainder spread over the first rows)."""
    total = rows * mean
    if not skewed:
        return np.full(rows, mean, np.int64)
    w = 1.0 / np.maximum(rng.random(rows), 1e-3) ** 2
    lengths = np.floor(w / w.sum() * total).astype(np.int64)
    lengths[: total - lengths.sum()] += 1
    return lengths


def _inputs(skewed: bool):
    def make(rng, sz):
        n, d = sz["ROWS"], sz["D"]
        lengths = _rows(rng, n, d, skewed)
        row_ptr = np.zeros(n + 1, np.int32)
        row_ptr[1:] = np.cumsum(lengths)
        return {"row_ptr": row_ptr, "col": rng.integers(0, n, n * d).astype(np.int32),
                "val": rng.uniform(-1, 1, n * d).astype(np.float32), "x": rng.uniform(-1, 1, n).astype(np.float32)}
    return make


def _reference(inp, sz):
    row_ptr, col, val, x = (np.asarray(inp[k]) for k in ("row_ptr", "col", "val", "x"))
    prod = val.astype(np.float64) * x.astype(np.float64)[col]
    row = np.repeat(np.arange(sz["ROWS"]), np.diff(row_ptr))
    return {"y": np.bincount(row, weights=prod, minlength=sz["ROWS"]).astype(np.float32)}


def specs():
    """The two checks: equal rows and skewed rows, ``ROWS`` rows of mean length ``D``."""
    source = SOURCE.read_text(encoding="utf-8")
    args = [Arg("rows", "scalar", "int32", "ROWS"), Arg("row_ptr", "buffer", "int32", "ROWS + 1"),
            Arg("col", "buffer", "int32", "ROWS * D"), Arg("val", "buffer", "float32", "ROWS * D"),
            Arg("x", "buffer", "float32", "ROWS"), Arg("y", "buffer", "float32", "ROWS", "out")]
    out = []
    for name, skewed in (("uniform", False), ("skewed", True)):
        spec = kernel_spec(PREFIX, source, "spmv_csr", sizes={"ROWS": pow2(12, 20, 2), "D": [2, 8, 32, 128]},
                           check={"ROWS": 512, "D": 8}, args=args, gsize=["ROWS"], local=[[256], [64]],
                           reference=_reference, make_inputs=_inputs(skewed), constraints=["ROWS * D <= 2**26"],
                           tol=(1e-3, 1e-4), idiom=f"CSR SpMV, {name} row lengths")
        spec.kernel_id = spec.family = f"{PREFIX}.spmv_{name}"
        out.append(spec)
    return out


def get_spec(kernel_id: str):
    """The spec of ``segcheck.spmv_uniform`` or ``segcheck.spmv_skewed``."""
    from kgraph.errors import InputError

    for spec in specs():
        if spec.kernel_id == kernel_id:
            return spec
    raise InputError(f"no segment check kernel {kernel_id!r}")
