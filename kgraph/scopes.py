"""C's block scoping, defined once: which declaration a name means at a point of a function.

:class:`ScopedNames` keeps the visible names in one dict; each open scope keeps an undo list that
restores the names it shadowed when it closes, so a lookup is one dict access at any nesting depth and
an inner declaration hides an outer one until its scope ends. The graph builder's symbol pass
(``kgraph.builder_scopes``) and the static analysis (``kgraph.analysis.scope``) both resolve names
through it.
"""
from __future__ import annotations

_ABSENT = object()


class ScopedNames:
    """Names visible at the current point of a walk: ``push`` on entering a scope, ``pop`` on leaving
    it, ``declare`` a name in the innermost open scope, ``lookup`` the innermost declaration of a name.
    The outermost scope (the function's) is never popped."""

    __slots__ = ("visible", "_undo")

    def __init__(self) -> None:
        self.visible: dict = {}    # name -> its innermost declaration
        self._undo: list[list] = [[]]  # per open scope: (name, what it shadowed or _ABSENT), in order

    def push(self) -> None:
        self._undo.append([])

    def pop(self) -> None:
        if len(self._undo) > 1:
            visible = self.visible
            for name, shadowed in reversed(self._undo.pop()):
                if shadowed is _ABSENT:
                    del visible[name]
                else:
                    visible[name] = shadowed

    def declare(self, name: str, value) -> None:
        self._undo[-1].append((name, self.visible.get(name, _ABSENT)))
        self.visible[name] = value

    def lookup(self, name: str):
        return self.visible.get(name)

    @property
    def depth(self) -> int:
        """Open scopes, the outermost included."""
        return len(self._undo)
