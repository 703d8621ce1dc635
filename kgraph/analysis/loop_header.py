"""The parts of a loop's header, read from the syntax tree: its variable and start (the initialiser), the
comparison that bounds it (the condition, ``i OP b`` or ``i + a OP b``), and its step (the update).

:mod:`kgraph.analysis.loops` turns them into trip counts. Each reader returns None parts (or ``""`` for a
variable) for a form it does not recognise; the loop is then counted as data-dependent.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.context import node_text
from kgraph.analysis.symbolic import assigned_names
from kgraph.parsers.limits import MAX_CONSTANT_BITS

FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}


def conjuncts(cond) -> list:
    """The operands of a chain of ``&&`` (``[cond]`` when it is not one)."""
    if cond.type == "binary_expression" and node_text(cond.child_by_field_name("operator")) == "&&":
        return conjuncts(cond.child_by_field_name("left")) + conjuncts(cond.child_by_field_name("right"))
    if cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        return conjuncts(cond.named_children[0])
    return [cond]


def comma_parts(node) -> list:
    """The operands of a comma expression (``q = 0, o = 5``; ``++q, o++``), else ``[node]``."""
    if node is None or node.type != "comma_expression":
        return [node]
    return comma_parts(node.child_by_field_name("left")) + comma_parts(node.child_by_field_name("right"))


def part_updating(update, var: str):
    """The operand of a comma update that updates ``var`` (the only one), or the update itself."""
    parts = comma_parts(update)
    if len(parts) == 1:
        return update
    hits = [p for p in parts if p is not None and assigned_names(p).get(var)]
    return hits[0] if len(hits) == 1 else None


def loop_init(init, env, cond=None):
    """(variable, start value) the initialiser sets; with several (``int i = 0, j = n``, ``q = 0, o = 5``),
    the one the condition tests (the first without a condition)."""
    found = []
    if init is not None and init.type == "declaration":
        for d in init.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                found.append((node_text(d.child_by_field_name("declarator")), d.child_by_field_name("value")))
    else:
        for part in comma_parts(init):
            if part is not None and part.type == "assignment_expression" and \
                    node_text(part.child_by_field_name("operator")) == "=" and \
                    part.child_by_field_name("left").type == "identifier":
                found.append((node_text(part.child_by_field_name("left")), part.child_by_field_name("right")))
    tested = {node_text(n) for n in identifiers(cond)} if cond is not None else set()
    for name, value in found:
        if cond is None or name in tested:
            return name, env.to_sympy(value)
    return "", None


def updated_name(update) -> str:
    """The variable a ``for`` update steps (``j++``, ``j += c``), or ""."""
    if update is None:
        return ""
    target = update.child_by_field_name("argument") if update.type == "update_expression" else \
        update.child_by_field_name("left") if update.type == "assignment_expression" else None
    return node_text(target) if target is not None and target.type == "identifier" else ""


def identifiers(node) -> list:
    stack, out = [node], []
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            out.append(n)
        stack.extend(n.named_children)
    return out


def loop_condition(cond, var, env):
    if cond.type != "binary_expression":
        return None, None
    op = node_text(cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op not in FLIP:
        return None, None
    for side, other, side_op in ((left, right, op), (right, left, FLIP[op])):
        offset = offset_of(side, var, env)
        if offset is not None and var not in {node_text(n) for n in identifiers(other)}:
            return side_op, env.to_sympy(other) - offset  # i + a OP b: i OP b - a
    return None, None


def offset_of(node, var: str, env):
    """``a`` (sympy) where ``node`` is ``var``, ``var + a``, ``a + var`` or ``var - a`` with ``a`` free of ``var``
    (0 for ``var`` itself; parentheses ignored); None for another form."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "identifier":
        return sp.Integer(0) if node_text(node) == var else None
    if node.type != "binary_expression" or node_text(node.child_by_field_name("operator")) not in ("+", "-"):
        return None
    plus = node_text(node.child_by_field_name("operator")) == "+"
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    for mine, rest, sign in ((left, right, 1 if plus else -1), (right, left, 1 if plus else None)):
        if sign and mine.type == "identifier" and node_text(mine) == var and \
                var not in {node_text(n) for n in identifiers(rest)}:
            return sign * env.to_sympy(rest)
    return None


def loop_update(update, var, env):
    if update is None:
        return None, None
    t = update.type
    if t == "update_expression":
        if node_text(update.child_by_field_name("argument")) != var:
            return None, None
        return "add", sp.Integer(1 if "++" in node_text(update) else -1)
    if t != "assignment_expression" or node_text(update.child_by_field_name("left")) != var:
        return None, None
    op = node_text(update.child_by_field_name("operator"))
    right = update.child_by_field_name("right")
    val = env.to_sympy(right)
    if op == "=" and right.type == "binary_expression":  # i = i + c, i = i * 2, i = i >> 1
        inner = node_text(right.child_by_field_name("operator"))
        l, r = right.child_by_field_name("left"), right.child_by_field_name("right")
        if node_text(l) != var:
            return None, None
        op, val = inner + "=", env.to_sympy(r)
    table = {"+=": ("add", val), "-=": ("add", -val), "*=": ("mul", val), "/=": ("div", val),
             "<<=": ("mul", power_of_two(val)), ">>=": ("div", power_of_two(val))}
    kind, step = table.get(op, (None, None))
    return (kind, step) if step is not None else (None, None)


def power_of_two(shift):
    """``2**shift`` for a shift count C defines (``0 <= shift < 64``), else None (not a counted loop)."""
    return sp.Integer(2) ** int(shift) if shift.is_Integer and 0 <= int(shift) < MAX_CONSTANT_BITS else None


