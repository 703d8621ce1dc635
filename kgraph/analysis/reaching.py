"""What an index knows of a variable the analysis gives no single value: its work-item slope, or that it comes
from memory.

A local assigned more than once (or set inside a loop from the loop's variable) is the opaque ``v_<name>``
(:mod:`kgraph.analysis.symbolic`), which carries no work-item id, so an access through it used to read as a
``broadcast`` (:func:`kgraph.analysis.patterns.classify`): every lane the same element. Two facts about such a
variable hold whatever value reaches a given access, and are what the access-pattern class needs:

- **From memory.** When any of its assignments stores a value loaded from memory (``k = row_ptr[r]``), or runs
  under a branch whose condition reads memory (a binary search's ``lo = mid + 1`` under ``if (key[mid] < x)``),
  the lanes hold values the data decides: the access is a gather (``indirect``). A loop's condition does not count:
  the lanes still in ``for (k = 0; k < m && t[i + k] == p[k]; k++)`` hold the same ``k``. Such a variable stands for
  ``ld_<name>@reaching``.
- **Its slope.** Otherwise, where every assignment agrees on d(value)/d(id) for the work-item ids (a declaration
  ``p = base + lane`` and an update ``p += 32`` both give slope 1 in ``lid0``; ``s = 1 - s`` keeps slope 0), the
  variable stands for ``v_<name> + sum(slope * id)``: the access is classified by that slope, its part the
  analysis cannot follow staying opaque. An assignment ``v = e`` whose ``e`` holds ``v`` with coefficient ``c``
  constrains the slope ``d`` by ``d = de/did + c * d``; the constraints must agree, each a launch constant.

Anything else (a compound assignment other than ``+=``/``-=``, a value the analysis cannot follow, constraints
that disagree) leaves ``v_<name>`` as it was. The variable's assignments are read from the whole function
(flow-insensitively) when an access first needs them; names of other such variables in them are resolved the
same way, a cycle or a name without a value giving up. Only access indices are rewritten: counts, guards and the
footprint keep ``v_<name>``.
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.context import node_text
from kgraph.analysis.patterns import stride_along
from kgraph.analysis.symbolic_math import is_opaque, loop_symbols, work_symbol

#: the work-item id symbols a slope is taken against (after :func:`normalize_ids`)
IDS = tuple(work_symbol(k, d) for k in ("gid", "lid", "grp") for d in range(3))
_BRANCHES = ("if_statement", "conditional_expression")
_GIVE_UP = object()


class Reaching:
    """The stand-ins of one function's ``v_<name>`` symbols for access indices (module docstring).

    Args:
        body: the function body (tree-sitter node) whose assignments are read.
        env: the function's :class:`~kgraph.analysis.symbolic.SymbolicEnv` (values as the walk has bound them).
        loop_starts: ``<var>_L<line>`` symbol name -> the loop's start value, for the loops walked so far.
    """

    def __init__(self, body, env, loop_starts):
        self.env, self.loop_starts = env, loop_starts
        self.assigns: dict[str, list] = {}
        self.declarations: dict[str, list] = {}
        self._collect(body)
        self.cache: dict[str, object] = {}
        self.active: set[str] = set()

    def resolve(self, index):
        """``index`` (sympy or None) with each ``v_<name>`` of a local replaced by its stand-in, where known."""
        if index is None or not hasattr(index, "free_symbols"):
            return index
        subs = {}
        for s in index.free_symbols:
            if s.name.startswith("v_") and s.name[2:] in self.assigns:
                stand = self.stand_in(s.name[2:])
                if stand is not None and stand is not _GIVE_UP:
                    subs[s] = stand
        return index.xreplace(subs) if subs else index

    def stand_in(self, name: str):
        """The stand-in of ``v_<name>``: ``ld_<name>@reaching``, ``v_<name> + slope·ids``, None (no change) or
        ``_GIVE_UP`` (a cycle through ``name``)."""
        if name in self.cache:
            return self.cache[name]
        if name in self.active:
            return _GIVE_UP
        self.active.add(name)
        try:
            out = self._derive(name)
        finally:
            self.active.discard(name)
        self.cache[name] = out
        return out

    def _derive(self, name: str):
        me = sp.Symbol("v_" + name)
        slopes, unknown = None, False
        for op, rhs, node in self.assigns[name]:
            if self._under_data(node, name):
                return sp.Symbol(f"ld_{name}@reaching")
            if op in ("++", "--"):
                continue
            if op not in ("=", "+=", "-=") or rhs is None:
                unknown = True
                continue
            value = self._value(rhs, me)
            if value is _GIVE_UP or value is None:
                unknown = True
                continue
            if any(s.name.startswith("ld_") for s in value.free_symbols):
                return sp.Symbol(f"ld_{name}@reaching")
            value = me + value if op == "+=" else (me - value if op == "-=" else value)
            got = _constraint(value, me)
            if got is None:
                unknown = True
            elif got != "free":
                if slopes is None:
                    slopes = got
                elif any(sp.simplify(a - b) != 0 for a, b in zip(slopes, got)):
                    unknown = True
        if unknown or slopes is None or all(d == 0 for d in slopes):
            return None
        return me + sum((d * i for d, i in zip(slopes, IDS)), sp.Integer(0))

    def _value(self, rhs, me):
        """The sympy value of an assignment's right side, other locals' ``v_`` replaced by their stand-ins and
        loop variables by their start; None where it holds something the analysis cannot follow."""
        value = self.env.to_sympy(rhs)
        if not hasattr(value, "free_symbols"):
            return None
        subs = {}
        for s in value.free_symbols:
            if s == me:
                continue
            if s.name.startswith("v_") and s.name[2:] in self.assigns:
                stand = self.stand_in(s.name[2:])
                if stand is _GIVE_UP:
                    return _GIVE_UP
                subs[s] = stand if stand is not None else s
            elif s.name in self.loop_starts:
                start = self.loop_starts[s.name]
                if start is None:
                    return None
                subs[s] = start
        value = value.xreplace(subs) if subs else value
        if any(s.name.startswith("ld_") for s in value.free_symbols):
            return value  # from memory, whatever else it holds
        rest = value.xreplace({me: sp.Integer(0)})
        if loop_symbols(rest) or any(s.name.startswith(("sel", "call_")) for s in rest.free_symbols):
            return None
        return value

    def _under_data(self, node, name: str) -> bool:
        """Whether assignment ``node`` runs under an ``if``/loop/ternary condition that reads memory, inside the
        scope of ``name``'s declaration (a variable declared in a branch on data holds its value there alone)."""
        decls = self.declarations.get(name, ())
        child, parent = node, node.parent
        while parent is not None and parent.type != "function_definition" and not any(
                parent.start_byte <= d.start_byte and d.end_byte <= parent.end_byte for d in decls):
            # a loop's condition decides how far its variables run, not what the lanes hold at one iteration (every
            # lane still in a loop over k holds the same k): only a branch on data makes the lanes' values differ
            cond = parent.child_by_field_name("condition") if parent.type in _BRANCHES else None
            if cond is not None and child != cond and self._reads_memory(cond):
                return True
            child, parent = parent, parent.parent
        return False

    def _reads_memory(self, cond) -> bool:
        """Whether a condition reads memory: a subscript or ``*p``, or a name whose value does."""
        stack = [cond]
        while stack:
            n = stack.pop()
            if n.type in ("subscript_expression", "pointer_expression"):
                return True
            if n.type == "identifier":
                name = node_text(n)
                value = self.env.values.get(name)
                if value is not None and any(s.name.startswith("ld_") for s in getattr(value, "free_symbols", ())):
                    return True
                if name in self.assigns and name not in self.active:
                    stand = self.stand_in(name)
                    if stand is not None and stand is not _GIVE_UP and getattr(stand, "name", "").startswith("ld_"):
                        return True
            stack.extend(n.named_children)
        return False

    def _collect(self, body) -> None:
        """Every assignment of an identifier in ``body``: name -> [(operator, right side node, node)]."""
        stack = [body] if body is not None else []
        while stack:
            n = stack.pop()
            target, op, rhs = None, None, None
            if n.type == "assignment_expression":
                target, rhs = n.child_by_field_name("left"), n.child_by_field_name("right")
                op = node_text(n.child_by_field_name("operator"))
            elif n.type == "update_expression":
                target, op = n.child_by_field_name("argument"), "++" if "++" in node_text(n) else "--"
            elif n.type == "init_declarator":
                target, rhs, op = n.child_by_field_name("declarator"), n.child_by_field_name("value"), "="
            if target is not None and target.type == "identifier":
                self.assigns.setdefault(node_text(target), []).append((op, rhs, n))
            if n.type == "declaration":
                for d in n.children_by_field_name("declarator"):
                    ident = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                    if ident is not None and ident.type == "identifier":
                        self.declarations.setdefault(node_text(ident), []).append(n)
            stack.extend(n.named_children)


def _constraint(value, me):
    """The slopes one assignment ``v = value`` fixes (a tuple over :data:`IDS`), ``"free"`` where it fixes none
    (``v = v + c``), None where it cannot be read (not affine in ``v``, a slope that is no launch constant)."""
    value = sp.expand(value)
    c = sp.diff(value, me)
    if me in getattr(c, "free_symbols", ()) or not c.is_number:
        return None
    rest = sp.expand(value - c * me)
    slopes = []
    for i in IDS:
        d = stride_along(rest, i)  # patterns' rules: clamps, integer division and % between their steps
        if d is None or d.has(sp.Derivative, sp.Subs) or (d != 0 and (is_opaque(d) or d.free_symbols & set(IDS))):
            return None
        slopes.append(d)
    if c == 1:
        return "free" if all(d == 0 for d in slopes) else None
    return tuple(sp.simplify(d / (1 - c)) for d in slopes)
