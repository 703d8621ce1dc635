"""Insert the static per-execution costs of each statement as private-counter increments.

:func:`kgraph.analysis.statement_costs` gives, for every statement (and every if/loop condition,
for-update and for-init), the work of ONE execution. The increments go where that code runs:

* ``stmt`` — ``__kg_c_flops_fp32 += k; ...`` just before the statement (wrapped in braces with it
  when the statement is the unbraced body of an if/loop, so the increment stays conditional);
* ``if_cond`` / ``loop_cond`` / ``loop_update`` — a comma expression inside the condition or update,
  ``(__kg_c_int_ops += 1ul, i < n)``, counted on every evaluation;
* ``loop_init`` — before the ``for`` statement (it runs once per entry to the loop).

Only the keys that the access rewrite does not count dynamically are taken from the static costs:
FLOPs by type, integer ops and transcendentals. Global bytes and atomics are counted at each access.
"""
from __future__ import annotations

from kgraph.instrument.edits import SourceEdits, depth_below
from kgraph.instrument.prelude import PRIVATE_NAME

STATIC_KEYS = ("flops_fp32", "flops_fp64", "int_ops", "transcendental")
_BLOCK_PARENTS = ("compound_statement", "case_statement", "labeled_statement", "translation_unit")


def insert_statement_costs(function, unit, edits: SourceEdits) -> tuple[int, list[str]]:
    """Add the increments of every statement's static cost to ``edits``.

    Returns:
        (number of insertions, warnings). A missing ``statement_costs`` is a warning, not an error:
        memory traffic is still counted.
    """
    try:
        from kgraph.analysis import statement_costs
    except ImportError as exc:
        return 0, [f"{unit.filename}: static statement costs unavailable ({exc}): FLOPs not counted"]
    body = function.body
    inserted, warnings = 0, []
    for item in statement_costs(function, unit):
        for call in item.calls:
            row, col = call.node.start_point
            name = getattr(call.callee, "name", "?")
            warnings.append(f"{unit.filename}:{row + 1}:{col + 1}: the work inside helper '{name}' "
                            "is not counted (only the kernel body is instrumented)")
        incs = _increments(item.counts)
        if not incs:
            continue
        node = item.node
        depth = depth_below(node, body)
        if item.kind == "stmt":
            _before_statement(node, " ".join(f"{v} += {k}ul;" for v, k in incs) + " ", edits, depth, unit)
        elif item.kind in ("if_cond", "loop_cond", "loop_update"):
            inner = _inside_parens(node)
            edits.open(inner.start_byte, "(" + "".join(f"{v} += {k}ul, " for v, k in incs), depth)
            edits.close(inner.end_byte, ")", depth)
        elif item.kind == "loop_init":
            loop = node.parent
            _before_statement(loop, " ".join(f"{v} += {k}ul;" for v, k in incs) + " ",
                              edits, depth_below(loop, body), unit)
        else:
            raise ValueError(f"unknown statement cost kind {item.kind!r}")
        inserted += 1
    return inserted, warnings


def _increments(counts) -> list[tuple[str, int]]:
    out = []
    for key in STATIC_KEYS:
        value = counts.get(key, 0)
        if value:
            if int(value) != value or value < 0:
                raise ValueError(f"statement cost {key}={value!r} is not a count")
            out.append((PRIVATE_NAME[key], int(value)))
    return out


def _before_statement(node, text: str, edits: SourceEdits, depth: int, unit) -> None:
    start = statement_start(node, unit)
    parent = node.parent
    if parent is not None and parent.type in _BLOCK_PARENTS:
        edits.open(start, text, depth)
    else:
        edits.open(start, "{ " + text, depth)
        edits.close(node.end_byte, " }", depth)


def statement_start(node, unit) -> int:
    """Where a statement really starts: before the OpenCL qualifiers the parser blanked in front
    of it (``__global float *p = ...`` is parsed as ``         float *p = ...``)."""
    source, original = unit.source, unit.text.encode("utf-8")
    start = pos = node.start_byte
    while pos > 0 and source[pos - 1:pos].isspace():
        pos -= 1
        if not original[pos:pos + 1].isspace():
            start = pos
    return start


def _inside_parens(node):
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return node.named_children[0]
    return node
