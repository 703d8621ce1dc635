"""The pointer arguments of an inlined helper call: which buffer, and which element of it, each one passes.

:meth:`~kgraph.analysis.analyze._Analyzer.inline` adds the offset to the index of every access the helper makes
through that parameter, and gives it to an atomic on the parameter itself (``atomic_inc(p)``).
"""
from __future__ import annotations

from kgraph.analysis.context import node_text


def pointer_arg(arg, analyzer) -> tuple:
    """(element offset, buffer) of a pointer argument: ``&X[i]`` is element ``i`` of ``X`` (not the value loaded
    there), ``X + i`` or ``X`` is what :meth:`to_sympy` makes of it.

    Args:
        arg: the argument's node; analyzer: the caller's analyzer (its scope and symbolic environment).
    """
    node = arg
    while node.type in ("parenthesized_expression", "cast_expression"):
        inner = node.child_by_field_name("value") if node.type == "cast_expression" else node.named_children[-1]
        if inner is None:
            break
        node = inner
    if node.type == "pointer_expression" and node_text(node.child_by_field_name("operator")) == "&":
        target = node.child_by_field_name("argument")
        base = target.child_by_field_name("argument") if target.type == "subscript_expression" else None
        var = analyzer.ctx.scope.lookup(node_text(base)) if base is not None and base.type == "identifier" else None
        if var is not None and var.ctype.pointer:
            return analyzer.env.to_sympy(target.child_by_field_name("index")), var.alias or var.name
    return analyzer.env.to_sympy(arg), _arg_buffer(arg, analyzer)


def _arg_buffer(arg, analyzer) -> str:
    for n in [arg] + list(arg.named_children):
        if n.type == "identifier":
            var = analyzer.ctx.scope.lookup(node_text(n))
            if var is not None and var.ctype.pointer:
                return var.alias or var.name
    return ""
