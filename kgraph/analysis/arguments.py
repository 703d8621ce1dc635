"""The pointer arguments of an inlined helper call: which buffer, and which element of it, each one passes.

:meth:`~kgraph.analysis.analyze._Analyzer.inline` adds the offset to the index of every access the helper makes
through that parameter, and gives it to an atomic on the parameter itself (``atomic_inc(p)``).
"""
from __future__ import annotations

from kgraph.analysis.atomics import address_of
from kgraph.analysis.context import node_text


def pointer_arg(arg, analyzer) -> tuple:
    """(element offset, buffer) of a pointer argument: ``&X[i]`` and ``X + i`` are element ``i`` past where ``X``
    points (:func:`~kgraph.analysis.atomics.address_of` parses them; ``&X[i]`` is not the value loaded there), any
    other form what :meth:`to_sympy` makes of it.

    Args:
        arg: the argument's node; analyzer: the caller's analyzer (its scope and symbolic environment).
    """
    parts = address_of(analyzer.ctx.scope, arg)
    if parts is not None:
        _, base, index = parts
        var = analyzer.ctx.scope.lookup(node_text(base)) if base.type == "identifier" else None
        if var is not None and var.ctype.pointer:
            offset = analyzer.env.to_sympy(base) + (0 if index is None else analyzer.env.to_sympy(index))
            return offset, var.alias or var.name
    return analyzer.env.to_sympy(arg), _arg_buffer(arg, analyzer)


def _arg_buffer(arg, analyzer) -> str:
    for n in [arg] + list(arg.named_children):
        if n.type == "identifier":
            var = analyzer.ctx.scope.lookup(node_text(n))
            if var is not None and var.ctype.pointer:
                return var.alias or var.name
    return ""
