"""What a front end returns: :class:`TranslationUnit` with its :class:`Function`, :class:`Param`,
:class:`Macro` and :class:`Pragma` records (see docs/DESIGN.md, section parsers/)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tree_sitter as ts

from kgraph.parsers.constexpr import fold_checked
from kgraph.parsers.dialect import Dialect
from kgraph.parsers.errors import Diagnostic, SourceError
from kgraph.parsers.limits import FOLD_TOKEN_BUDGET


@dataclass
class Param:
    """One kernel/helper parameter.

    Args:
        name: the identifier (``""`` for an unnamed parameter).
        base_type: the scalar type (``float`` for ``float4``; ``uint`` for ``unsigned int``; a typedef or
            struct name as written when unknown).
        vector_width: 1, 2, 3, 4, 8 or 16.
        is_pointer: a pointer (or array) parameter.
        address_space: ``global`` | ``local`` | ``constant`` | ``private`` (| ``generic``).
        is_const, is_restrict: the qualifiers of the pointee/value.
        kind: ``buffer`` if a pointer else ``scalar``.
        elem_bytes: bytes of one element (``float4`` → 16), ``None`` for an unknown type.
        qualifiers: every canonical qualifier written on it (``global``, ``read_only``, ``const``...).
        node: the ``parameter_declaration`` node.
    """

    name: str
    base_type: str
    vector_width: int
    is_pointer: bool
    address_space: str
    is_const: bool
    is_restrict: bool
    kind: str
    elem_bytes: int | None
    qualifiers: frozenset[str] = frozenset()
    pointer_depth: int = 0
    node: ts.Node | None = field(default=None, repr=False, compare=False)


@dataclass
class Function:
    """A function definition (kernel or helper).

    Args:
        name, is_kernel, params, return_type: as written (``return_type`` keeps ``*`` for pointers).
        node: the ``function_definition``; body: its ``compound_statement``.
        qualifiers: canonical qualifiers (``kernel``, ``device``, ``static``, ``inline``...).
        attributes: ``reqd_work_group_size`` (tuple), ``work_group_size_hint``, ``vec_type_hint``,
            ``launch_bounds`` (tuple), ``pragmas`` (list of :class:`Pragma` inside the body), any other
            ``__attribute__`` by name (tuple of argument texts).
        line, col: 1-based position of the name.
        qualified_name: the name as written when a C++ scope qualifies it (``Aig::buildHashTable``;
            ``name`` is then ``buildHashTable``), else None.
    """

    name: str
    is_kernel: bool
    params: list[Param]
    return_type: str
    node: ts.Node = field(repr=False)
    body: ts.Node = field(repr=False)
    qualifiers: set[str] = field(default_factory=set)
    attributes: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    col: int = 0
    qualified_name: str | None = None


@dataclass(frozen=True)
class Macro:
    """A ``#define``: ``params`` is None for object-like macros; ``value`` when the body folds to a constant."""

    name: str
    params: tuple[str, ...] | None
    body: str
    value: int | float | None = None
    line: int = 0


@dataclass(frozen=True)
class Pragma:
    """A ``#pragma``: ``name`` (``unroll``, ``OPENCL``...), its argument text, ``value`` (unroll count or
    None), its byte offset and 1-based line; ``loop_start`` is the start byte of the loop it applies to."""

    name: str
    text: str
    value: int | None
    start: int
    line: int
    loop_start: int | None = None


@dataclass
class TranslationUnit:
    """One parsed source file.

    Attributes: ``filename, lang, dialect, text`` (original str), ``source`` (the bytes parsed: OpenCL
    qualifiers blanked), ``tree, functions`` (source order), ``macros, diagnostics``;
    ``pragmas`` (loop start byte → Pragma), ``extensions`` (OpenCL extension → ``enable``/``disable``),
    ``includes`` (list of (header, found path or None)), ``qualifiers`` (declaration node start byte →
    canonical qualifier names). Use :meth:`qualifiers_at` / :meth:`address_space_of` for any node.
    """

    filename: str
    lang: str
    dialect: Dialect
    text: str
    source: bytes
    tree: ts.Tree
    functions: list[Function] = field(default_factory=list)
    macros: dict[str, Macro] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pragmas: dict[int, Pragma] = field(default_factory=dict)
    extensions: dict[str, str] = field(default_factory=dict)
    includes: list[tuple[str, str | None]] = field(default_factory=list)
    qualifiers: dict[int, frozenset[str]] = field(default_factory=dict)
    address_spaces: dict[int, str] = field(default_factory=dict)
    # constant folding: results by expression text, and the tokens of macro expansion left to this unit
    _folds: dict[str, tuple] = field(default_factory=dict, init=False, repr=False, compare=False)
    _fold_work: list[int] = field(default_factory=lambda: [FOLD_TOKEN_BUDGET], init=False, repr=False,
                                  compare=False)
    _by_name: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _overloads: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _declared: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel]

    def functions_by_name(self) -> dict[str, Function]:
        """Name → function (the last definition of a name wins), built once per ``functions`` list."""
        cached = self._by_name
        if cached is None or cached[0] is not self.functions or cached[1] != len(self.functions):
            cached = self._by_name = (self.functions, len(self.functions), {f.name: f for f in self.functions})
        return cached[2]

    def overloads(self) -> dict[str, list[Function]]:
        """Name → every definition of that name in source order (C++ overloads; one entry in C), built once
        per ``functions`` list. :func:`kgraph.parsers.calls.callee` picks the one a call reaches."""
        cached = self._overloads
        if cached is None or cached[0] is not self.functions or cached[1] != len(self.functions):
            table: dict[str, list[Function]] = {}
            for f in self.functions:
                table.setdefault(f.name, []).append(f)
            cached = self._overloads = (self.functions, len(self.functions), table)
        return cached[2]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def function(self, name: str) -> Function | None:
        """The first function defined as ``name``, or None."""
        return next((f for f in self.functions if f.name == name), None)

    def raise_on_errors(self) -> None:
        """Raise :class:`SourceError` with every error diagnostic, if there is any."""
        if self.errors:
            raise SourceError(self.errors)

    def declaration_of(self, node: ts.Node) -> ts.Node | None:
        """The innermost declaration-like node (parameter, declaration, field, typedef, cast type,
        function definition) containing ``node``, itself included."""
        kinds = self.dialect.declaration_nodes
        while node is not None and node.type not in kinds:
            node = node.parent
        return node

    def qualifiers_at(self, node: ts.Node) -> frozenset[str]:
        """Canonical qualifiers written on the declaration containing ``node`` (``{"local"}`` for
        ``__local float tile[16][16];``, ``{"kernel"}`` for a kernel's definition)."""
        decl = self.declaration_of(node)
        return self.qualifiers.get(decl.start_byte, frozenset()) if decl is not None else frozenset()

    def address_space_of(self, node: ts.Node) -> str:
        """Address space of the declaration containing ``node``: written, else the dialect default
        (pointer parameters: ``global`` in CUDA and C, ``private`` in OpenCL; others ``private``)."""
        decl = self.declaration_of(node)
        if decl is None:
            return self.dialect.default_space
        written = self.address_spaces.get(decl.start_byte)
        if written:
            return written
        if decl.type == "parameter_declaration" and _is_pointer_decl(decl):
            return self.dialect.default_pointer_space
        return self.dialect.default_space

    def fold(self, expr: str) -> int | float | None:
        """The value of a C constant expression after macro resolution (``"TILE*2"`` → 32), or None
        (also when a value leaves the range of ``kgraph.parsers.limits.MAX_CONSTANT_BITS``)."""
        return self.fold_checked(expr)[0]

    def fold_checked(self, expr: str) -> tuple[int | float | None, str | None]:
        """``(value, None)`` or ``(None, "range" | "no fold")``, see :func:`kgraph.parsers.constexpr.fold_checked`.

        Results are cached by text while the macro table is unchanged; all folds of one unit share
        ``FOLD_TOKEN_BUDGET`` tokens of macro expansion (past it, expressions with macros stay unfolded).
        """
        key = (id(self.macros), len(self.macros), expr)
        hit = self._folds.get(key)
        if hit is None:
            hit = self._folds[key] = fold_checked(expr, self.macros, self._sizeof, work=self._fold_work)
        return hit

    def _sizeof(self, spelling: str) -> int | None:
        info = self.dialect.type_info(spelling)
        return info.bytes if info is not None else (8 if spelling.endswith("*") else None)

    def node_text(self, node: ts.Node) -> str:
        """The original text of ``node`` (qualifiers included, unlike ``node.text``)."""
        return self.text.encode("utf-8")[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _is_pointer_decl(decl: ts.Node) -> bool:
    d = decl.child_by_field_name("declarator")
    while d is not None:
        if d.type in ("pointer_declarator", "abstract_pointer_declarator", "array_declarator"):
            return True
        d = d.child_by_field_name("declarator")
    return False
