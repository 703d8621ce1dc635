"""Per-statement costs: the counts of ONE execution of each executable statement of a function.

This is the base of the whole analysis: :func:`kgraph.analysis.analyze` weights these entries by
trip counts and branch probabilities, and the instrumentation (``kgraph.instrument``) inserts
counter updates with exactly these numbers, so static and instrumented counts follow one rule set.

Entries, in source order: expression statements, declarations with initialisers, ``return`` with a
value (kind ``stmt``); ``if``/``switch`` conditions (``if_cond``, +1 branch); loop conditions
(``loop_cond``, +1 branch per evaluation); ``for`` initialisers (``loop_init``) and updates
(``loop_update``). Nested statements are separate entries. Calls of helper functions are listed in
``calls`` but their bodies are not counted here (the helper's own entries hold them).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.analysis.context import Context, condition_value, node_text
from kgraph.analysis.counts import zero_counts
from kgraph.analysis.expression import ExpressionCounter

KINDS = ("stmt", "if_cond", "loop_cond", "loop_update", "loop_init")


@dataclass
class StatementCost:
    """Counts of one execution of one statement (nested statements excluded).

    Args:
        node: the tree-sitter node (the statement, or the condition/update/initialiser expression).
        kind: ``stmt`` | ``if_cond`` | ``loop_cond`` | ``loop_update`` | ``loop_init``.
        counts: count key → int (every key of :data:`~kgraph.analysis.counts.COUNT_KEYS`).
        accesses: memory accesses in the statement (:class:`~kgraph.analysis.expression.AccessSite`).
        calls: helper calls in the statement (:class:`~kgraph.analysis.expression.CallSite`).
        declares: variables a declaration introduces.
    """

    node: object
    kind: str
    counts: dict
    accesses: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    declares: list = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.node.start_point[0] + 1

    @property
    def key(self) -> tuple:
        return statement_key(self.node, self.kind)

    def to_dict(self) -> dict:
        return {"line": self.line, "col": self.node.start_point[1] + 1, "kind": self.kind,
                "text": node_text(self.node)[:80], "counts": dict(self.counts)}


def statement_key(node, kind: str) -> tuple:
    """Lookup key of a statement entry: (start byte, end byte, kind)."""
    return (node.start_byte, node.end_byte, kind)


def statement_costs(function, unit) -> list[StatementCost]:
    """Counts of one execution of each executable statement of ``function`` (see module docstring)."""
    walker = _Walker(Context(function, unit))
    if function.body is not None:
        walker.statement(function.body)
    return walker.out


class _Walker:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.out: list[StatementCost] = []

    def emit(self, node, kind: str, exprs, branch: bool = False, declaration=None) -> StatementCost:
        counts = zero_counts()
        counter = ExpressionCounter(self.ctx, counts)
        init_types = {}
        for name, expr in exprs:
            t = counter.visit(expr)
            if name:
                base = counter.base_variable(expr) if t.pointer else None
                init_types[name] = (t, (base.alias or base.name) if base is not None else "")
        if branch:
            counts["branches"] += 1
        entry = StatementCost(node, kind, counts, counter.accesses, counter.calls)
        if declaration is not None:
            entry.declares = self.ctx.declare(declaration, init_types)
        self.out.append(entry)
        return entry

    def declaration(self, node, kind: str) -> None:
        exprs = []
        for d in node.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                name = _declared_name(d)
                exprs.append((name, d.child_by_field_name("value")))
        if exprs:
            self.emit(node, kind, exprs, declaration=node)
        else:
            self.ctx.declare(node)

    def statement(self, node) -> None:
        if node is None:
            return
        t = node.type
        if t == "compound_statement":
            self.ctx.scope.push()
            for child in node.named_children:
                self.statement(child)
            self.ctx.scope.pop()
        elif t == "declaration":
            self.declaration(node, "stmt")
        elif t == "expression_statement":
            if node.named_child_count:
                self.emit(node, "stmt", [(None, c) for c in node.named_children if c.type != "comment"])
        elif t == "return_statement":
            if node.named_child_count:
                self.emit(node, "stmt", [(None, c) for c in node.named_children])
        elif t == "if_statement":
            self.emit(condition_value(node.child_by_field_name("condition")), "if_cond",
                      [(None, condition_value(node.child_by_field_name("condition")))], branch=True)
            self.branch(node.child_by_field_name("consequence"))
            alt = node.child_by_field_name("alternative")
            if alt is not None:
                self.branch(alt.named_children[0] if alt.type == "else_clause" and alt.named_child_count else alt)
        elif t == "switch_statement":
            cond = condition_value(node.child_by_field_name("condition"))
            self.emit(cond, "if_cond", [(None, cond)], branch=True)
            self.statement(node.child_by_field_name("body"))
        elif t == "case_statement":
            for child in node.named_children:
                if child.type.endswith("statement") or child.type == "declaration":
                    self.statement(child)
        elif t == "for_statement":
            self.ctx.scope.push()
            init = node.child_by_field_name("initializer")
            if init is not None:
                if init.type == "declaration":
                    self.declaration(init, "loop_init")
                else:
                    self.emit(init, "loop_init", [(None, init)])
            cond = node.child_by_field_name("condition")
            if cond is not None:
                self.emit(cond, "loop_cond", [(None, cond)], branch=True)
            update = node.child_by_field_name("update")
            if update is not None:
                self.emit(update, "loop_update", [(None, update)])
            self.branch(node.child_by_field_name("body"))
            self.ctx.scope.pop()
        elif t in ("while_statement", "do_statement"):
            if t == "do_statement":
                self.branch(node.child_by_field_name("body"))
            cond = condition_value(node.child_by_field_name("condition"))
            self.emit(cond, "loop_cond", [(None, cond)], branch=True)
            if t == "while_statement":
                self.branch(node.child_by_field_name("body"))
        elif t == "labeled_statement":
            for child in node.named_children[1:]:
                self.statement(child)
        # break/continue/goto, preprocessor lines and comments cost nothing

    def branch(self, node) -> None:
        """A statement in its own scope (an if arm or loop body that may not be a block)."""
        self.ctx.scope.push()
        self.statement(node)
        self.ctx.scope.pop()


def _declared_name(init_declarator) -> str:
    node = init_declarator.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator") or (node.named_children[0] if node.named_child_count else None)
    return node_text(node) if node is not None else ""
