"""Bisection loops: a binary search's trip count is the log2 of its range, not an unknown.

A ``while``/``do`` loop that halves an index range ``[lo, hi]`` each iteration (a lookup in a sorted array, a
CDF, run starts, segment offsets) moves ``lo`` or ``hi`` inside an ``if`` on data, so the affine reading of
:mod:`kgraph.analysis.loops` finds no one update of a tested variable and the loop was ``trip_<line>``,
assumed at one iteration. Its count follows from the range's length ``n`` alone. Recognised shapes (any names;
``mid`` declared or assigned in the body as ``(lo + hi) >> 1``, ``(lo + hi) / 2``, ``lo + (hi - lo) / 2`` or
``lo + ((hi - lo) >> 1)``; ``lo`` and ``hi`` each assigned once in the body, from ``mid``, ``mid + 1`` or
``mid - 1``; their values where the loop starts known and free of work-item ids):

====================================  ===============================  ==========================
condition                              updates                          mean trip count
====================================  ===============================  ==========================
``hi - lo > 1``, ``lo + 1 < hi``        ``lo = mid``, ``hi = mid``        ``log2(hi0 - lo0)``
``lo < hi``                             ``lo = mid + 1``, ``hi = mid``    ``log2(hi0 - lo0 + 1)``
``lo <= hi``                            ``lo = mid + 1``, ``hi = mid - 1`` ``log2(hi0 - lo0 + 2)``
====================================  ===============================  ==========================

(each at least 0: ``log2(Max(1, .))``). Each is the mean over the searched keys within one iteration: a range of
``n`` takes ``floor(log2 n)`` or ``ceil(log2 n)`` halvings. A ``break`` or ``return`` on a match (the ``lo <= hi``
form) leaves earlier, so there the count is an upper bound, and the loop's note says so. The count is a mean, not
an exact count: the ``if`` on data that picks the half keeps the kernel's counts inexact
(:mod:`kgraph.exact_counts`).
"""
from __future__ import annotations

import re

import sympy as sp

from kgraph.analysis.context import node_text
from kgraph.analysis.loop_header import conjuncts
from kgraph.analysis.symbolic import assigned_names, id_symbols, is_opaque, normalize_ids, tidy

_NAME = r"[A-Za-z_]\w*"
#: condition text (spaces removed) -> (form, lo, hi): form "open" (hi - lo > 1), "half" (lo < hi), "closed"
_CONDITIONS = (
    (re.compile(rf"^\(?(?P<hi>{_NAME})-(?P<lo>{_NAME})\)?>1$"), "open"),
    (re.compile(rf"^\(?(?P<lo>{_NAME})\+1\)?<(?P<hi>{_NAME})$"), "open"),
    (re.compile(rf"^(?P<hi>{_NAME})>\(?(?P<lo>{_NAME})\+1\)?$"), "open"),
    (re.compile(rf"^(?P<lo>{_NAME})<(?P<hi>{_NAME})$"), "half"),
    (re.compile(rf"^(?P<hi>{_NAME})>(?P<lo>{_NAME})$"), "half"),
    (re.compile(rf"^(?P<lo>{_NAME})<=(?P<hi>{_NAME})$"), "closed"),
    (re.compile(rf"^(?P<hi>{_NAME})>=(?P<lo>{_NAME})$"), "closed"),
)
#: the range's length beyond ``hi0 - lo0`` whose log2 is the mean trip count, by form
_EXTRA = {"open": 0, "half": 1, "closed": 2}
#: the updates each form needs: (lo's, hi's), as text with spaces removed
_UPDATES = {"open": ({"{m}"}, {"{m}"}), "half": ({"{m}+1"}, {"{m}"}), "closed": ({"{m}+1"}, {"{m}-1"})}


def _squeeze(node) -> str:
    return "".join(node_text(node).split())


def _strip(text: str) -> str:
    """``text`` without integer suffixes on literals (``1u``) and without a cast to an integer type."""
    text = re.sub(r"(?<=\d)[uUlL]+\b", "", text)
    return re.sub(r"^\((?:const)?(?:unsigned)?(?:int|uint|long|ulong|size_t)\)", "", text)


def _midpoints(lo: str, hi: str) -> set[str]:
    """The texts (spaces removed) of the midpoint of ``lo`` and ``hi``."""
    sums = {f"({lo}+{hi})", f"({hi}+{lo})"}
    out = {f"{s}>>1" for s in sums} | {f"{s}/2" for s in sums}
    for diff in (f"({hi}-{lo})/2", f"(({hi}-{lo})>>1)", f"({hi}-{lo})>>1"):
        out |= {f"{lo}+{diff}", f"{diff}+{lo}", f"{lo}+({diff})"}
    return out | {f"({m})" for m in out}


def _assignments(body) -> list[tuple[str, str]]:
    """``(target, value)`` texts (spaces removed) of every ``=`` assignment and initialised declaration in ``body``."""
    out, stack = [], [body]
    while stack:
        n = stack.pop()
        if n.type == "assignment_expression" and node_text(n.child_by_field_name("operator")) == "=":
            out.append((_squeeze(n.child_by_field_name("left")), _strip(_squeeze(n.child_by_field_name("right")))))
        elif n.type == "init_declarator" and n.child_by_field_name("value") is not None:
            out.append((_squeeze(n.child_by_field_name("declarator")),
                        _strip(_squeeze(n.child_by_field_name("value")))))
        stack.extend(n.named_children)
    return out


def _leaves_early(body) -> bool:
    """Whether a ``break`` (of this loop) or a ``return`` in ``body`` can end the search before its range is spent."""
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type in ("break_statement", "return_statement"):
            return True
        if n.type not in ("for_statement", "while_statement", "do_statement", "switch_statement"):
            stack.extend(n.named_children)
    return False


def bisection(cond, body, start_of) -> tuple[sp.Expr, str] | None:
    """``(mean trip count, note)`` of a loop with condition ``cond`` and body ``body`` (tree-sitter nodes) when it is
    a bisection of the module doc's table, else None; ``start_of(name)`` gives a variable's value where the loop
    starts (None when unknown)."""
    if cond is None or body is None or len(conjuncts(cond)) != 1:
        return None
    text = _strip(_squeeze(cond))
    found = next(((pat.match(text), form) for pat, form in _CONDITIONS if pat.match(text)), None)
    if found is None:
        return None
    match, form = found
    lo, hi = match.group("lo"), match.group("hi")
    assigns = _assignments(body)
    counts = assigned_names(body)
    mids = _midpoints(lo, hi)
    mid = next((target for target, value in assigns if value in mids and target not in (lo, hi)), None)
    if mid is None or counts.get(mid, 0) != 1 or counts.get(lo, 0) != 1 or counts.get(hi, 0) != 1:
        return None
    want_lo, want_hi = ({u.format(m=mid) for u in us} for us in _UPDATES[form])
    got = dict((target, value) for target, value in assigns if target in (lo, hi))
    if got.get(lo) not in want_lo or got.get(hi) not in want_hi:
        return None
    lo0, hi0 = start_of(lo), start_of(hi)
    if lo0 is None or hi0 is None or is_opaque(lo0) or is_opaque(hi0):
        return None
    length = sp.expand(hi0 - lo0 + _EXTRA[form])
    if id_symbols(normalize_ids(length)) or id_symbols(length):
        return None
    trip = tidy(sp.log(sp.Max(1, length), 2))
    note = f"bisection of [{lo}, {hi}]: log2 of the range's length ({length}), a mean"
    if _leaves_early(body):
        note += "; a 'break' or 'return' can end it on a match (the count is then an upper bound)"
    return trip, note
