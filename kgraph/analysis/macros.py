"""Function-like macros used inside expressions: expand them for counting.

The parser keeps macros unexpanded (byte offsets stay exact), so ``MAD(a[i], b, c)`` is a call
expression of an unknown function. :func:`expand_macro` substitutes the argument texts (each in
parentheses) for the parameters of the macro body, parses the result with the project's parser as
a tiny synthetic function ``void __kg_macro(void) { <expansion>; }`` and returns the expression node
of that statement. The node's identifiers are the caller's names, so the caller's scope still
gives their types (:class:`~kgraph.analysis.expression.ExpressionCounter`) and values
(:class:`~kgraph.analysis.symbolic.SymbolicEnv`). Nested macros expand when the caller visits the
new node (depth-limited). Bodies with ``#``/``##`` (stringising, token pasting) or that do not parse
as one expression are not expanded (the call is then counted as an unknown function).
"""
from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_]\w*")
MAX_DEPTH = 8
_CACHE: dict[tuple, object] = {}


def function_macro(ctx, name: str):
    """The function-like ``Macro`` called ``name`` in ``ctx``'s unit, or None."""
    macro = ctx.macros.get(name)
    return macro if macro is not None and getattr(macro, "params", None) is not None else None


def expand_macro(ctx, macro, arg_texts: list[str]):
    """Expression node of ``macro`` applied to ``arg_texts`` (a synthetic tree), or None."""
    params = list(macro.params)
    body = (macro.body or "").strip()
    variadic = bool(params) and params[-1] in ("...", "__VA_ARGS__")
    if not body or "#" in body or (len(params) != len(arg_texts) and not variadic):
        return None
    key = (ctx.unit.lang, body, tuple(params), tuple(arg_texts))
    if key in _CACHE:
        return _CACHE[key][1]
    values = {p: f"({a})" for p, a in zip(params, arg_texts)}
    if variadic:
        values["__VA_ARGS__"] = ", ".join(arg_texts[len(params) - 1:])
    text = _IDENT.sub(lambda m: values.get(m.group(0), m.group(0)), body)
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[key] = _parse_expression(text, ctx.unit.lang)  # (unit, node): the tree outlives the node
    return _CACHE[key][1]


def _parse_expression(text: str, lang: str):
    from kgraph.parsers import parse_source

    try:
        unit = parse_source(f"void __kg_macro(void) {{\n{text};\n}}\n", lang, filename="<macro>",
                            check_calls=False)  # its names are the caller's
    except Exception:  # noqa: BLE001 - an expansion that is not C is simply not expanded
        return None, None
    if unit.errors or not unit.functions or unit.functions[0].body is None:
        return None, None
    stmts = [c for c in unit.functions[0].body.named_children if c.type != "comment"]
    if len(stmts) != 1 or stmts[0].type != "expression_statement" or stmts[0].named_child_count != 1:
        return None, None
    return unit, stmts[0].named_children[0]
