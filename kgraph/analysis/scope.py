"""Names visible at a point of a kernel: parameters, local variables and arrays, with their types.

The analysis walks a function in source order and opens a scope per compound statement and per ``for``;
names resolve through :class:`kgraph.scopes.ScopedNames` (C's block scoping, shared with the graph builder). A variable knows its :class:`CType`, its array dimensions, and the buffer
it points into (``alias``) when it is a pointer derived from a buffer parameter.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgraph.analysis.ctype import CType
from kgraph.scopes import ScopedNames


@dataclass
class Variable:
    """One declared name.

    Args:
        name: identifier.
        ctype: its type; for arrays and pointers, ``pointer=True`` and the element type/space.
        dims: array extents as source text (``("16", "16")`` for ``float t[16][16]``), ``()`` otherwise.
        alias: name of the buffer parameter or array a pointer variable points into (itself for
            buffers and arrays), ``""`` when unknown.
        is_param: a parameter of the function.
        line: 1-based declaration line.
    """

    name: str
    ctype: CType
    dims: tuple = ()
    alias: str = ""
    is_param: bool = False
    line: int = 0


class Scope(ScopedNames):
    """The :class:`Variable` of each visible name: C's block scoping of :class:`kgraph.scopes.ScopedNames`
    (``push``/``pop``, ``lookup(name)``), declared by variable."""

    __slots__ = ()

    def declare(self, var: Variable) -> None:
        super().declare(var.name, var)
