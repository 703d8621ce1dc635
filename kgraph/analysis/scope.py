"""Names visible at a point of a kernel: parameters, local variables and arrays, with their types.

The analysis walks a function in source order and keeps a stack of scopes (one per compound
statement and per ``for``). A variable knows its :class:`CType`, its array dimensions, and the buffer
it points into (``alias``) when it is a pointer derived from a buffer parameter.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.analysis.ctype import CType


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


@dataclass
class Scope:
    """A stack of name tables; lookups go from the innermost outwards."""

    frames: list = field(default_factory=lambda: [{}])

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        if len(self.frames) > 1:
            self.frames.pop()

    def declare(self, var: Variable) -> None:
        self.frames[-1][var.name] = var

    def lookup(self, name: str) -> Variable | None:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None
