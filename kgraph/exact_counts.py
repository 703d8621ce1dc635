"""Whether the static analysis counts a kernel's work exactly: the one rule, used by ``kgraph estimate``
(:mod:`kgraph.app.static_checks`: static FLOPs and bytes replace the model's only then) and by the measuring
harness (:mod:`kgraph.data.harness.counts`: static counts that are not exact are stored as
``counts_source = "static-inexact"``, and ``--counts dependent`` runs the instrumented kernel for them).

**The rule.** The kernel's per-work-item counts evaluated at a launch are exact where the analysis counts every
statement exactly: every symbol has a value at the launch (no ``trip_<line>`` loop it could not count), every
loop trip count is symbolic, the analysis left no approximation note, and no branch depends on data: no
``if``/``while``/``for``/``?:``/``switch`` condition reads memory (an array subscript or a dereference) or a
variable assigned from one, and no ``?:`` arm reads global memory (the analysis counts both arms). An ``if`` whose
branches only copy values (``best = c; best_dist = dist;``: the argmin of k-means assignment) is no such branch:
whichever way it goes, the counts are the same. Conditions comparing two different work-item ids (triangular
kernels) are still weighed 1/2 by the analysis and not detected here.

:func:`exactness` applies it in that order (notes, then loops of unknown trip count, then data-dependent
branches, :func:`data_dependent`); :func:`inexact_reason` is its reason alone ("" when exact). Whether every
symbol has a value is the caller's to check, at the launch (the counts then evaluate to numbers).

This module sits below ``kgraph.app`` and ``kgraph.data`` (both import it) and imports the analysis lazily.
"""
from __future__ import annotations

from typing import NamedTuple

_CONDITION_PARENTS = ("if_statement", "while_statement", "do_statement", "for_statement", "switch_statement")
_LOOPS = ("while_statement", "do_statement", "for_statement")
#: the syntax of a branch that only copies values (``best = c;``): no operator, access, call or jump
_COPY_NODES = frozenset({"compound_statement", "expression_statement", "assignment_expression", "declaration",
                         "init_declarator", "identifier", "number_literal", "true", "false", "comment",
                         "else_clause", "primitive_type", "parenthesized_expression"})


class Exactness(NamedTuple):
    """The rule's verdict on one kernel (module doc)."""

    reason: str  # "" when the counts are exact, else why not
    #: the counts are inexact only because of loops of unknown trip count whose conditions do not depend on data:
    #: a launch that gives the means of their ``trip_<line>`` symbols makes them exact
    trips_suffice: bool = False


def exactness(analysis, unit, function) -> Exactness:
    """Whether the counts of ``analysis`` (of kernel ``function`` of the parsed ``unit``) are exact, and why not:
    the analysis's notes, else its loops of unknown trip count (with the data-dependent branches outside those
    loops' own conditions), else the data-dependent branches."""
    opaque = {lp.line for lp in analysis.loops if not lp.symbolic}
    windows = {lp.line for lp in analysis.loops if lp.window}  # conditions that read memory, counts that do not
    if analysis.notes:
        return Exactness("; ".join(analysis.notes))
    if opaque:
        from kgraph.analysis.loops import unknown_trip_counts

        reason = "unknown trip count: " + "; ".join(unknown_trip_counts(analysis.loops))
        why = data_dependent(unit, function, opaque | windows)
        return Exactness(f"{reason}; {why}") if why else Exactness(reason, trips_suffice=True)
    return Exactness(data_dependent(unit, function, windows or None))


def inexact_reason(analysis, unit, function) -> str:
    """Why the static counts of ``function`` (``analysis`` its analysis, ``unit`` its parsed source) are not exact,
    "" when they are (:func:`exactness`)."""
    return exactness(analysis, unit, function).reason


def data_dependent(unit, function, loop_lines: set | None = None) -> str:
    """Why the kernel's control flow depends on data (``""`` when it does not): see the module doc. The
    conditions of the loops starting on ``loop_lines`` (those of unknown trip count, whose mean a launch may
    give) are not looked at."""
    functions = [function] + [f for f in unit.functions if not f.is_kernel and f.body is not None]
    src = unit.source

    def text(n) -> str:
        return src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def reads_memory(n) -> bool:
        stack = [n]
        while stack:
            x = stack.pop()
            if x.type == "subscript_expression":
                return True
            if x.type == "pointer_expression" and x.child_by_field_name("operator") is not None \
                    and text(x.child_by_field_name("operator")) == "*":
                return True
            stack.extend(x.children)
        return False

    def only_copies(n) -> bool:
        """Whether the statement ``n`` (None: an absent ``else``) only copies values: assignments and
        declarations whose right-hand sides are names or literals, nothing the counts include, no jump."""
        stack = [n] if n is not None else []
        while stack:
            x = stack.pop()
            if x.type == "assignment_expression" and text(x.child_by_field_name("operator")) != "=":
                return False
            if x.type not in _COPY_NODES:
                return False
            stack.extend(c for c in x.children if c.is_named)
        return True

    def names(n) -> set:
        out, stack = set(), [n]
        while stack:
            x = stack.pop()
            if x.type == "identifier":
                out.add(text(x))
            stack.extend(x.children)
        return out

    for fn in functions:
        tainted: set[str] = set()
        assigns = []
        stack = [fn.body]
        while stack:
            x = stack.pop()
            stack.extend(x.children)
            if x.type == "init_declarator" and x.child_by_field_name("value") is not None:
                decl = x.child_by_field_name("declarator")
                while decl is not None and decl.type != "identifier":
                    decl = decl.child_by_field_name("declarator")
                if decl is not None:
                    assigns.append((text(decl), x.child_by_field_name("value")))
            elif x.type == "assignment_expression" and x.child_by_field_name("left").type == "identifier":
                assigns.append((text(x.child_by_field_name("left")), x.child_by_field_name("right")))
        changed = True
        while changed:
            changed = False
            for name, value in assigns:
                if name not in tainted and (reads_memory(value) or names(value) & tainted):
                    tainted.add(name)
                    changed = True
        stack = [fn.body]
        while stack:
            x = stack.pop()
            stack.extend(x.children)
            cond = None
            if x.type in _CONDITION_PARENTS and not (loop_lines and x.type in _LOOPS and fn is function
                                                     and x.start_point[0] + 1 in loop_lines):
                cond = x.child_by_field_name("condition")
                if x.type == "switch_statement":
                    return f"line {x.start_point[0] + 1}: a switch"
            elif x.type == "conditional_expression":
                cond = x.child_by_field_name("condition")
                for arm in ("consequence", "alternative"):
                    a = x.child_by_field_name(arm)
                    if a is not None and reads_memory(a):
                        return f"line {x.start_point[0] + 1}: a ?: arm reads memory (the analysis counts both arms)"
            if cond is not None and (reads_memory(cond) or names(cond) & tainted):
                if x.type == "if_statement" and only_copies(x.child_by_field_name("consequence")) \
                        and only_copies(x.child_by_field_name("alternative")):
                    continue  # either way the same counts
                return f"line {x.start_point[0] + 1}: a condition depends on data"
    return ""
