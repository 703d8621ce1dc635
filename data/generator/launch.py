"""Launch facts of a generated kernel: work-group shapes, memory and work constraints, tolerances.

Problem sizes span from a few thousand points without loops (a few microseconds on an H200-class
GPU, i.e. launch overhead) to the largest combinations the constraints keep:

* memory: all buffers together at most :data:`MEM_CAP` bytes (well under ``MAX_LAUNCH_BYTES``);
* work: ``points x (iterations x inner cost + outer cost) <= WORK_CAP``, costs counted on the
  intermediate form in single-precision-operation equivalents (fp64 x2, transcendental x8,
  global loads x4, atomics x16), so the heaviest launches stay near a second.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import MAX_LAUNCH_BYTES, evaluate
from kgraph.data.corpus.templating import LOCAL_1D, LOCAL_2D, LOCAL_3D

from . import ir
from .assemble import Assembled

MEM_CAP = 384 * 2**20
WORK_CAP = 2**44
MAX_COMBINATIONS = 600
TRANSCENDENTAL = {"sin", "cos", "exp", "log", "sqrt", "rsqrt", "tanh", "atan"}
assert MEM_CAP <= MAX_LAUNCH_BYTES


def expr_cost(e: ir.Expr, kernel: ir.Kernel) -> float:
    """Cost of evaluating ``e`` once (see the module docstring).

    Args:
        e: the expression; kernel: its kernel (helper and macro bodies).
    """
    if isinstance(e, (ir.Const, ir.Var, ir.MacroConst, ir.WorkItem, ir.BufRef)):
        return 0.0
    width = getattr(e, "ty", ir.INT).width
    scale = 2.0 if getattr(e, "ty", ir.INT).base == "double" else 1.0
    if isinstance(e, ir.Bin):
        return width * scale + expr_cost(e.a, kernel) + expr_cost(e.b, kernel)
    if isinstance(e, (ir.Un, ir.Cast, ir.Lane, ir.Splat)):
        return expr_cost(e.a if not isinstance(e, ir.Lane) else e.v, kernel)
    if isinstance(e, ir.Select):
        return 1 + sum(expr_cost(x, kernel) for x in (e.c, e.a, e.b))
    if isinstance(e, ir.Load):
        return (4.0 if e.space in ("global", "constant") else 1.0) + expr_cost(e.index, kernel)
    if isinstance(e, ir.VLoad):
        return 4.0 * width + expr_cost(e.offset, kernel)
    if isinstance(e, ir.Call):
        args = sum(expr_cost(a, kernel) for a in e.args)
        if e.kind == "helper":
            h = next(h for h in kernel.helpers if h.name == e.fn)
            return args + stmts_cost(h.body, kernel) + expr_cost(h.result, kernel)
        if e.kind == "macro":
            m = next(m for m in kernel.macros if m.name == e.fn)
            return args + expr_cost(m.body, kernel)
        return args + width * scale * (8.0 if e.fn in TRANSCENDENTAL else 2.0)
    raise TypeError(type(e).__name__)


def _trip(loop: ir.For) -> float:
    if isinstance(loop.bound, (ir.Const, ir.MacroConst)) and isinstance(loop.start, (ir.Const, ir.MacroConst, ir.Un)):
        return 2.0 * float(loop.bound.value) + 1 if isinstance(loop.start, ir.Un) else float(loop.bound.value)
    return 8.0


def stmts_cost(body, kernel: ir.Kernel) -> float:
    """Cost of executing the statements once (fixed-bound inner loops at their trip count).

    Args:
        body: the statements; kernel: their kernel.
    """
    total = 0.0
    for s in body:
        if isinstance(s, ir.Decl):
            total += expr_cost(s.init, kernel) if s.init is not None else 0.0
        elif isinstance(s, ir.Assign):
            total += expr_cost(s.value, kernel) + (0 if isinstance(s.target, ir.Var) else 4.0)
        elif isinstance(s, ir.VStore):
            total += expr_cost(s.value, kernel) + 4.0 * s.value.ty.width
        elif isinstance(s, ir.If):
            total += expr_cost(s.cond, kernel) + max(stmts_cost(s.then, kernel), stmts_cost(s.orelse, kernel))
        elif isinstance(s, ir.For):
            total += _trip(s) * (1 + stmts_cost(s.body, kernel))
        elif isinstance(s, ir.Atomic):
            total += 16.0 + expr_cost(s.index, kernel)
        elif isinstance(s, ir.Barrier):
            total += 4.0
    return total


def default_local_sizes(dims: int) -> list[list[int]]:
    """The corpus's candidate work-group shapes for a kernel whose result does not depend on them.

    Args:
        dims: the NDRange's dimensions.
    """
    return [list(s) for s in {1: LOCAL_1D, 2: LOCAL_2D, 3: LOCAL_3D}[dims]]


def constraints(a: Assembled, args) -> list[str]:
    """Memory and work constraints of a generated kernel, and its fixed shape's divisibility.

    Args:
        a: the assembled kernel; args: its spec arguments (buffer counts).
    """
    terms = []
    for arg in args:
        if arg.kind == "buffer":
            terms.append(f"({arg.count})*{np.dtype(arg.dtype).itemsize}")
    out = [f"{' + '.join(terms)} <= {MEM_CAP}"]
    inner = max(1, int(round(stmts_cost(a.inner, a.kernel))))
    outer = max(1, int(round(stmts_cost(a.outer, a.kernel))))
    iters = a.nest.iters if a.nest.levels else "0"
    if a.early is None:
        out.append(f"({a.space.total}) * (({iters}) * {inner} + {outer}) <= {WORK_CAP}")
    else:  # the early-exit loop at its bound (its mean for segments)
        cost = max(1, int(round(stmts_cost(a.early.body, a.kernel)))) + 1
        out.append(f"({a.space.total}) * (({iters}) * {inner} + {outer} + ({a.early.iters}) * {cost}) <= {WORK_CAP}")
    if a.local_sizes:
        for size, l in zip(a.space.extents, a.local_sizes[0]):
            out.append(f"{size.name} % {l} == 0")
    return out


def tolerances(compute: str, terms: str, check: dict) -> tuple[float, float]:
    """(rtol, atol) of the check: single precision is loosened with the number of summed terms.

    Args:
        compute: the recipe's type mix; terms: a size expression of the terms summed into one output;
        check: the check sizes.
    """
    count = max(1.0, float(evaluate(terms, dict(check))))
    if compute == "fp64":
        return 1e-8, 1e-10 * count
    if compute == "int":
        return 0.0, 0.0
    return 2e-3, 2e-5 * count


def thin_sizes(sizes: dict, dims: set, limit: int = MAX_COMBINATIONS) -> dict:
    """Size lists with at most ``limit`` combinations: the longest list that is not an NDRange
    dimension loses every other value (its ends kept) until the product fits (planning cost).

    Args:
        sizes: candidate values per size parameter.
        dims: the names of the index-space extents (never thinned).
    """
    out = {k: list(v) for k, v in sizes.items()}
    while int(np.prod([len(v) for v in out.values()])) > limit:
        name = max((k for k in out if k not in dims and len(out[k]) > 2), key=lambda k: len(out[k]), default=None)
        if name is None:
            break
        values = out[name]
        out[name] = values[::2] if (len(values) - 1) % 2 == 0 else values[::2] + [values[-1]]
    return out
