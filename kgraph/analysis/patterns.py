"""Access-pattern classes of memory accesses, from the index expression against the work-item ids.

- ``indirect``: the index contains a value loaded from memory (``x[col[k]]``).
- ``broadcast``: the index does not depend on the fastest-varying id (``get_global_id(0)``,
  ``get_local_id(0)``, ``threadIdx.x``): every work-item of a row reads the same element.
- ``coalesced``: unit stride in that id (neighbouring work-items touch neighbouring elements).
- ``strided``: any other stride (a constant > 1, or a symbol as in ``A[gid0*K + k]``).

The stride is d(index)/d(gid0) in elements of the accessed type (``vload4(i, p)`` strides in float4s),
after rewriting ``grp0*lsz0 + lid0`` as ``gid0``; integer division and ``%`` are differentiated between their
steps (``a[(i / d) * d + j]`` is a broadcast within each segment of ``d`` work-items, ``a[i % d]`` coalesced).
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.symbolic import normalize_ids, work_symbol

PATTERNS = ("coalesced", "strided", "broadcast", "indirect")


def classify(index) -> tuple[str, object]:
    """(pattern, stride) of a sympy index expression; stride is None for ``indirect``."""
    if index is None:
        return "broadcast", sp.Integer(0)
    expr = normalize_ids(index)
    gid0, lid0 = work_symbol("gid", 0), work_symbol("lid", 0)
    stride = _stride(expr, gid0 if gid0 in expr.free_symbols else lid0)
    if stride is None:
        return "indirect", None
    if stride == 0:
        return "broadcast", stride
    if stride in (1, -1):
        return "coalesced", stride
    return "strided", stride


def stride_along(index, var) -> object:
    """d(index)/d(``var``) in elements where the index is differentiable (the rules of :func:`classify`, for any
    variable: a loop's as well as an id); None for a gathered index (it contains a loaded value)."""
    return sp.Integer(0) if index is None else _stride(normalize_ids(index), var)


def _stride(expr, var) -> object:
    """The stride of a normalized index ``expr`` along ``var`` (:func:`stride_along`)."""
    if any(s.name.startswith("ld_") for s in expr.free_symbols):
        return None
    expr = _unclamp(expr, {var})
    if var not in expr.free_symbols:
        return sp.Integer(0)
    return _almost_everywhere(sp.expand(sp.diff(expr, var)))


def _almost_everywhere(stride):
    """The stride where the index is differentiable: sympy leaves d/dx of ``floor``/``ceiling`` (integer
    division, ``(i / d) * d``) and of ``Mod`` unevaluated; between steps the first is 0 (neighbouring work-items
    of one segment share the element: a broadcast) and the second is the derivative of its dividend."""
    def step(e):
        inner = e.expr if isinstance(e, (sp.Subs, sp.Derivative)) else None
        inner = inner.expr if isinstance(inner, sp.Derivative) else inner
        return isinstance(inner, (sp.floor, sp.ceiling))

    if not stride.has(sp.Derivative, sp.Subs):
        return stride
    stride = stride.replace(step, lambda e: sp.Integer(0))
    stride = stride.replace(lambda e: isinstance(e, sp.Subs), lambda e: e.doit())  # Subs(0, ...) -> 0
    stride = stride.replace(lambda e: isinstance(e, sp.Derivative) and isinstance(e.expr, sp.Mod),
                            lambda e: sp.diff(e.expr.args[0], *e.variables))
    return sp.expand(stride)


def _unclamp(expr, ids):
    """A clamp (Min/Max nest with one argument that depends on ``ids``) read as that argument: the
    stride inside the clamped range (``in[min(max(gid0 - 1, 0), n - 1)]`` is coalesced)."""
    if not isinstance(expr, sp.Basic) or expr.is_Atom:
        return expr
    if isinstance(expr, (sp.Min, sp.Max)):
        dep = [a for a in expr.args if a.free_symbols & ids]
        if len(dep) == 1:
            return _unclamp(dep[0], ids)
        return expr
    args = [_unclamp(a, ids) for a in expr.args]
    return expr.func(*args) if any(a is not b for a, b in zip(args, expr.args)) else expr
