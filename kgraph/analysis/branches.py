"""Branch fractions: the share of executions that take a branch the analysis cannot decide, defined once.

Where an ``if`` condition (or an early ``return``'s) is no guard on ids and sizes (:mod:`kgraph.analysis.guards`),
typically because it reads data (``if (deg[v] < k) return;``, ``if (x[i] > t) atomic_inc(count);``), the analysis
weighs each arm :data:`PRIOR` = 1/2: the arm taken runs for half the executions, the other for the rest. The real
share depends on the data, which the source does not say; a launch may state it, as ``--arg taken_<line>=P`` (``P``
in [0, 1], the share of the condition's evaluations that are true), as it states a loop's mean trip count
(``--arg trip_<line>=N``). ``<line>`` is the 1-based line of the ``if`` (:func:`taken_symbol`); the kernel's lines
weighed so are ``KernelAnalysis.branches``, and ``kgraph estimate``'s counts note names them.

A given share re-runs the analysis with that share in place of 1/2 on that line (:func:`kgraph.graphs.
with_branch_fractions`): the counts stay numbers and every consumer (features, floors, footprint, the C export of
the prior's counts) evaluates them as it does at the prior. Not given, every share is the prior, and the counts are
what they were before shares could be given. A given share does not make the counts exact: it is a mean over the
data, and the exactness rule (:mod:`kgraph.exact_counts`) still reads the branch as one on data.
"""
from __future__ import annotations

import re

import sympy as sp

#: the share of executions assumed to take a branch the analysis cannot decide
PRIOR = sp.Rational(1, 2)
TAKEN_PREFIX = "taken_"
_SYMBOL = re.compile(rf"^{TAKEN_PREFIX}(\d+)$")


def taken_symbol(line: int) -> str:
    """The launch argument that gives the share of line ``line``'s branch (``taken_<line>``)."""
    return f"{TAKEN_PREFIX}{line}"


def branch_line(name: str) -> int | None:
    """The line of a ``taken_<line>`` argument name, None for any other name."""
    match = _SYMBOL.match(name)
    return int(match.group(1)) if match else None


def share(line: int, given: dict[int, sp.Expr] | None) -> sp.Expr:
    """The weight of line ``line``'s branch: its given share, else :data:`PRIOR`."""
    return given[line] if given and line in given else PRIOR


def as_share(value: float) -> sp.Expr:
    """A given share as an exact sympy number (a rational of denominator at most 10**6), so the counts simplify as
    they do at the prior."""
    return sp.Rational(value).limit_denominator(10 ** 6)


def branch_symbols(analysis) -> list[str]:
    """The ``taken_<line>`` arguments a launch of ``analysis`` (a ``KernelAnalysis``, or None) may give."""
    return [taken_symbol(line) for line in getattr(analysis, "branches", ())] if analysis is not None else []


def describe_branches(analysis, given: dict[str, float]) -> str:
    """One line on the branches weighed by a share: those at a given share, and those at the prior with how to
    give theirs, e.g. ``line 14's branch taken by 1/2 of executions (assumed; give --arg taken_14=P)``; "" when
    the kernel has none."""
    lines = list(getattr(analysis, "branches", ())) if analysis is not None else []
    if not lines:
        return ""
    stated = [f"taken_{n} = {given[taken_symbol(n)]:.4g}" for n in lines if taken_symbol(n) in given]
    assumed = [n for n in lines if taken_symbol(n) not in given]
    parts = [f"branch shares as given: {', '.join(stated)}"] if stated else []
    if assumed:
        where = ", ".join(str(n) for n in assumed)
        parts.append(f"the branch{'es' if len(assumed) > 1 else ''} on line{'s' if len(assumed) > 1 else ''} "
                     f"{where} {'are' if len(assumed) > 1 else 'is'} assumed taken by 1/2 of executions (give the "
                     f"share: --arg {taken_symbol(assumed[0])}=P)")
    return "; ".join(parts)
