"""CONTROL edges of one function: statement order, both arms of branches, loop back-edges.

CONTROL nodes are statements (``compound_statement`` is not one: control passes through it), plus
the function_definition (the entry), a ``for``'s initializer and update, and ``case`` labels.
A loop statement node is the loop header and holds the condition; its body is entered by a
CTRL_TRUE edge, the loop is left by a CTRL_FALSE edge, and the latch (the ``for`` update, or the
body's fall-through ends and ``continue``s) returns to the header by a CTRL_BACK edge; ``do``'s
header is at the bottom and its back-edge goes to the body's first statement.
``break`` leaves the innermost loop/switch, ``return`` ends the path, ``goto`` jumps to its label.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.schema import CTRL_BACK, CTRL_FALSE, CTRL_NEXT, CTRL_TRUE, Flow

# statement kinds whose own evaluation is only their condition/value child (the rest is nested statements)
_CONDITION_FIELD = {"if_statement": "condition", "while_statement": "condition", "do_statement": "condition",
                    "for_statement": "condition", "switch_statement": "condition", "case_statement": "value"}
# statements that contain statements (handled as generator frames, see _Builder.statement)
_NESTING = frozenset({"compound_statement", "if_statement", "while_statement", "for_statement", "do_statement",
                      "switch_statement", "labeled_statement"})
_NOT_STATEMENTS = frozenset({"comment", "preproc_call", "preproc_def", "preproc_function_def", "preproc_include",
                             "preproc_if", "preproc_ifdef", "type_qualifier", "storage_class_specifier",
                             "attribute_declaration", "attribute_specifier"})

Dangling = list[tuple[int, int]]  # (node, position) pairs waiting for their successor


@dataclass
class ControlFlow:
    """The CONTROL graph of one function.

    Args:
        entry: the function_definition node.
        nodes: CONTROL nodes in creation order (entry first).
        preds: node -> its CONTROL predecessors.
        evaluates: node -> the AST subtrees evaluated when control is at it (its condition for a
            branch/loop/switch, the whole statement for a simple one, nothing for the entry).
    """

    entry: int
    nodes: list[int] = field(default_factory=list)
    preds: dict[int, list[int]] = field(default_factory=dict)
    evaluates: dict[int, list[int]] = field(default_factory=dict)


class _Builder:
    def __init__(self, b, entry: int):
        self.b = b
        self.cfg = ControlFlow(entry)
        self.loops: list[dict] = []      # innermost last: {"breaks": [...], "continues": [...] | None}
        self.labels: dict[str, int] = {}
        self.gotos: list[tuple[int, str]] = []
        self.edge_src, self.edge_dst, self.edge_position = b.edge_columns[Flow.CONTROL]
        self._add(entry, [])

    def _add(self, node: int, evaluates: list[int]) -> None:
        self.cfg.nodes.append(node)
        self.cfg.preds.setdefault(node, [])
        self.cfg.evaluates[node] = evaluates

    def connect(self, dangling: Dangling, target: int, position: int | None = None) -> None:
        preds = self.cfg.preds.setdefault(target, [])
        for src, pos in dangling:
            self.edge_src.append(src)
            self.edge_dst.append(target)
            self.edge_position.append(pos if position is None else position)
            preds.append(src)

    def statement(self, s: int, preds: Dangling) -> Dangling:
        """The dangling exits of statement ``s`` entered from ``preds``. Iterative: a nesting statement
        is a generator frame on an explicit stack that yields ``(sub-statement, its preds)`` and is sent
        the sub-statement's exits, so nesting depth is not bounded by Python's recursion limit."""
        kind = self.b.kind
        if kind[s] not in _NESTING:
            return self._simple(s, preds)
        stack = [self._nested(s, preds)]
        value = None
        while stack:
            try:
                s, preds = stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                value = done.value
                continue
            if kind[s] in _NESTING:
                stack.append(self._nested(s, preds))
                value = None
            else:
                value = self._simple(s, preds)
        return value

    def _simple(self, s: int, preds: Dangling) -> Dangling:
        """A statement without nested statements (expression, declaration, jump, ...)."""
        b = self.b
        k = b.kind[s]
        if k in _NOT_STATEMENTS:
            return preds
        cond_field = _CONDITION_FIELD.get(k)
        if cond_field is None:
            self._add(s, [s])
        else:  # case_statement outside a switch body
            cond = b.child(s, cond_field)
            self._add(s, [cond] if cond is not None else [])
        self.connect(preds, s)
        if k == "break_statement":
            if self.loops:
                self.loops[-1]["breaks"].append((s, CTRL_NEXT))
            return []
        if k == "continue_statement":
            target = next((lp for lp in reversed(self.loops) if lp["continues"] is not None), None)
            if target is not None:
                target["continues"].append((s, CTRL_NEXT))
            return []
        if k == "return_statement":
            return []
        if k == "goto_statement":
            label = b.child(s, "label")
            if label is not None:
                self.gotos.append((s, b.text.get(label)))
            return []
        return [(s, CTRL_NEXT)]

    def _nested(self, s: int, preds: Dangling):
        """Generator frame of a compound, branch, loop, switch or labeled statement (see :meth:`statement`)."""
        b = self.b
        k = b.kind[s]
        if k == "compound_statement":
            for c in b.children[s]:
                preds = yield c, preds
            return preds
        cond_field = _CONDITION_FIELD.get(k)
        cond = b.child(s, cond_field) if cond_field else None
        if k == "labeled_statement":
            self._add(s, [])
        elif k != "for_statement":
            self._add(s, [cond] if cond is not None else [])
        if k == "if_statement":
            self.connect(preds, s)
            consequence = b.child(s, "consequence")
            out = [(s, CTRL_TRUE)] if consequence is None else (yield consequence, [(s, CTRL_TRUE)])
            alt = b.child(s, "alternative")
            return out + ((yield alt, [(s, CTRL_FALSE)]) if alt is not None else [(s, CTRL_FALSE)])
        if k == "while_statement":
            self.connect(preds, s)
            return (yield from self._loop(s, b.child(s, "body"), [(s, CTRL_TRUE)], latch=s,
                                          exit_=[(s, CTRL_FALSE)]))
        if k == "for_statement":
            init = b.child(s, "initializer")
            if init is not None:
                self._add(init, [init])
                self.connect(preds, init)
                preds = [(init, CTRL_NEXT)]
            self._add(s, [cond] if cond is not None else [])
            self.connect(preds, s)
            update = b.child(s, "update")
            if update is not None:
                self._add(update, [update])
            return (yield from self._loop(s, b.child(s, "body"), [(s, CTRL_TRUE)],
                                          latch=update if update is not None else s, exit_=[(s, CTRL_FALSE)]))
        if k == "do_statement":
            self.loops.append({"breaks": [], "continues": []})
            body = b.child(s, "body")
            entry = preds + [(s, CTRL_BACK)]
            out = entry if body is None else (yield body, entry)
            loop = self.loops.pop()
            self.connect(out + loop["continues"], s)
            return [(s, CTRL_FALSE)] + loop["breaks"]
        if k == "switch_statement":
            self.connect(preds, s)
            return (yield from self._switch(s))
        # labeled_statement
        self.connect(preds, s)
        label = b.child(s, "label")
        if label is not None:
            self.labels[b.text.get(label)] = s
        out: Dangling = [(s, CTRL_NEXT)]
        for c in b.children[s]:
            if c != label:
                out = yield c, out
        return out

    def _loop(self, header: int, body: int | None, preds: Dangling, latch: int, exit_: Dangling):
        self.loops.append({"breaks": [], "continues": []})
        out = preds if body is None else (yield body, preds)
        loop = self.loops.pop()
        if latch != header:
            self.connect(out + loop["continues"], latch, CTRL_NEXT)
            self.connect([(latch, CTRL_BACK)], header)
        else:
            self.connect(out + loop["continues"], header, CTRL_BACK)
        return exit_ + loop["breaks"]

    def _switch(self, s: int):
        b = self.b
        body = b.child(s, "body")
        self.loops.append({"breaks": [], "continues": None})
        out: Dangling = []
        has_default = False
        cases = b.children[body] if body is not None else []
        for case in cases:
            if b.kind[case] != "case_statement":
                out = yield case, out
                continue
            value = b.child(case, "value")
            has_default |= value is None
            self._add(case, [value] if value is not None else [])
            self.connect(out + [(s, CTRL_TRUE)], case)
            out = [(case, CTRL_NEXT)]
            for c in b.children[case]:
                if c != value:
                    out = yield c, out
        loop = self.loops.pop()
        return out + loop["breaks"] + ([] if has_default else [(s, CTRL_FALSE)])


def add_control_edges(b, entry: int) -> ControlFlow:
    """Add the CONTROL edges of the function whose function_definition node is ``entry``."""
    builder = _Builder(b, entry)
    body = b.child(entry, "body")
    if body is not None:
        builder.statement(body, [(entry, CTRL_NEXT)])
    for src, label in builder.gotos:
        target = builder.labels.get(label)
        if target is not None:
            builder.connect([(src, CTRL_NEXT)], target)
    return builder.cfg
