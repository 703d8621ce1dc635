"""Expression dtypes for the ``dtype`` column: a bottom-up pass with C's usual arithmetic conversions.

Identifiers, literals and types get their dtype while the graph is built; this pass fills in the
expressions above them: arithmetic takes the wider operand (a vector operand wins), comparisons and
logical operators give ``int``, an assignment has its left side's type, a subscript or ``*`` the
element type, ``.x``/``.s0`` of a vector its scalar, a cast its target type, a call of a known math
builtin its first argument's type, a work-item builtin ``size_t``.
"""
from __future__ import annotations

from kgraph.schema import CONVERSION_RANK, VECTOR_BASES, dtype_name

_RANK = CONVERSION_RANK  # the usual arithmetic conversions (kgraph.schema)
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "!"})
_WORK_ITEM = frozenset({"get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size",
                        "get_num_groups", "get_global_offset"})
_VECTOR_FIELDS_SCALAR = frozenset({"x", "y", "z", "w", *(f"s{c}" for c in "0123456789abcdefABCDEF")})


def _scalar_of(dtype: str) -> str:
    stripped = dtype.rstrip("0123456789")
    return stripped if stripped in VECTOR_BASES and stripped != dtype else dtype


def _wider(a: str, b: str) -> str:
    if a in ("none", "other"):
        return b
    if b in ("none", "other"):
        return a
    if _scalar_of(a) != a:
        return a
    if _scalar_of(b) != b:
        return b
    return a if _RANK.get(a, -1) >= _RANK.get(b, -1) else b


def infer_dtypes(b, expressions: list[int]) -> None:
    """Set ``dtype`` on the ``expressions`` (pre-order) whose dtype is still ``none``, children first."""
    dtype, kind, op, text, children = b.dtype, b.kind, b.op, b.text, b.children
    for i in reversed(expressions):
        if dtype[i] != "none":
            continue
        k = kind[i]
        kids = children[i]
        if k == "binary_expression":
            if op.get(i) in _COMPARISONS:
                dtype[i] = "int"
            elif len(kids) == 2:
                dtype[i] = _wider(dtype[kids[0]], dtype[kids[1]])
        elif k in ("assignment_expression", "update_expression", "unary_expression", "comma_expression"):
            if k == "unary_expression" and op.get(i) == "!":
                dtype[i] = "int"
            elif kids:
                dtype[i] = dtype[kids[0] if k != "comma_expression" else kids[-1]]
        elif k == "conditional_expression" and len(kids) == 3:
            dtype[i] = _wider(dtype[kids[1]], dtype[kids[2]])
        elif k == "subscript_expression" and kids:
            dtype[i] = dtype[kids[0]]
        elif k == "pointer_expression" and kids and op.get(i) == "*":
            dtype[i] = dtype[kids[0]]
        elif k == "field_expression" and len(kids) == 2:
            base = dtype[kids[0]]
            if text.get(kids[1]) in _VECTOR_FIELDS_SCALAR and _scalar_of(base) != base:
                dtype[i] = _scalar_of(base)
            elif base in ("none", "other") and text.get(kids[0]) in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
                dtype[i] = "uint"
        elif k == "cast_expression":
            t = b.child(i, "type")
            if t is not None:
                dtype[i] = dtype_name(b.source[b.start[t]:b.end[t]].decode("utf-8", "replace"))
        elif k == "call_expression":
            fn = b.child(i, "function")
            args = b.child(i, "arguments")
            name = text.get(fn) if fn is not None else None
            if name in _WORK_ITEM:
                dtype[i] = "size_t"
            elif name and name.startswith(("convert_", "as_")):
                dtype[i] = dtype_name(name.split("_", 1)[1].replace("_sat", "").split("_rt")[0])
            elif name in b.functions:
                dtype[i] = dtype_name(b.functions[name].return_type)
            elif args is not None and b.children[args]:
                dtype[i] = dtype[children[args][0]]
