"""The preprocessing real kernels need, read from the tree (nothing is textually expanded).

- ``#define`` (object-like and function-like) → :class:`Macro`, with ``value`` when the body folds
  to a constant through other macros; the first definition of a name wins (``#ifndef TILE`` guards),
  macros given by the caller (``-D``) override the source.
- ``#include`` → ``unit.includes``; a quoted header that does not exist next to the source is a
  warning (never fatal, never read).
- ``#pragma unroll [N]`` (also ``GCC unroll N``, ``nounroll``) → :class:`Pragma` attached to the loop
  that follows (``unit.pragmas`` keyed by the loop's start byte); ``#pragma OPENCL EXTENSION e : s``
  → ``unit.extensions[e] = s``.
"""
from __future__ import annotations

import os
import re

import tree_sitter as ts

from kgraph.parsers.diagnostics import position
from kgraph.parsers.errors import Diagnostic
from kgraph.parsers.unit import Macro, Pragma, TranslationUnit

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LOOPS = ("for_statement", "while_statement", "do_statement")
_SKIP = ("comment", "preproc_call")


def _clean(text: str) -> str:
    return " ".join(_COMMENT.sub(" ", text.replace("\\\r\n", " ").replace("\\\n", " ")).split())


def _following_loop(node: ts.Node) -> ts.Node | None:
    sib = node.next_named_sibling
    while sib is not None and sib.type in _SKIP:
        sib = sib.next_named_sibling
    if sib is not None and sib.type in _LOOPS:
        return sib
    return None


def collect(unit: TranslationUnit, defines: dict[str, str] | None = None) -> None:
    """Fill ``unit.macros, includes, pragmas, extensions`` and add include warnings to diagnostics."""
    original = unit.text.encode("utf-8")
    text_of = lambda n: original[n.start_byte:n.end_byte].decode("utf-8", "replace")  # noqa: E731
    macros: dict[str, Macro] = {}
    for name, body in (defines or {}).items():
        macros[name] = Macro(name, None, str(body), None, 0)
    pragma_nodes = []
    for caps in unit.dialect.matches("preprocessor", unit.tree.root_node):
        if "define" in caps:
            node = caps["define"][0]
            name = text_of(caps["name"][0])
            if name in macros:
                continue
            value = node.child_by_field_name("value")
            params = None
            if "params" in caps:
                params = tuple(text_of(p) if p.type == "identifier" else "__VA_ARGS__"
                               for p in caps["params"][0].named_children if p.type != "comment")
            line, _ = position(original, node.start_byte, node.start_point.row)
            macros[name] = Macro(name, params, _clean(text_of(value)) if value is not None else "", None, line)
        elif "include" in caps:
            path_node = caps["path"][0]
            raw = text_of(path_node).strip()
            header = raw[1:-1] if len(raw) >= 2 else raw
            found = None
            if unit.filename and not unit.filename.startswith("<"):
                candidate = os.path.join(os.path.dirname(unit.filename) or ".", header)
                found = candidate if os.path.isfile(candidate) else None
            unit.includes.append((header, found))
            if found is None and path_node.type != "system_lib_string":
                line, col = position(original, path_node.start_byte, path_node.start_point.row)
                unit.diagnostics.append(Diagnostic(unit.filename, line, col, "warning",
                                                   f"cannot find include file '{header}' next to the source; "
                                                   f"its declarations and macros are unknown"))
        elif "call" in caps and text_of(caps["directive"][0]).replace(" ", "") == "#pragma":
            pragma_nodes.append(caps["call"][0])
    unit.macros = macros
    for name, m in list(macros.items()):
        if m.params is None:
            macros[name] = Macro(m.name, None, m.body, unit.fold(m.body), m.line)
    for node in pragma_nodes:
        _pragma(unit, node, original)


def _pragma(unit: TranslationUnit, node: ts.Node, original: bytes) -> None:
    arg = node.child_by_field_name("argument")
    text = _clean(original[arg.start_byte:arg.end_byte].decode("utf-8", "replace")) if arg is not None else ""
    words = text.split()
    if not words:
        return
    line, _ = position(original, node.start_byte, node.start_point.row)
    if words[0] == "OPENCL" and len(words) >= 2 and words[1] == "EXTENSION":
        rest = " ".join(words[2:]).split(":")
        if len(rest) == 2:
            unit.extensions[rest[0].strip()] = rest[1].strip()
        return
    if words[0] == "GCC" and len(words) > 1:
        words = words[1:]
    name = words[0]
    if name not in ("unroll", "nounroll"):
        return
    value = unit.fold(" ".join(words[1:])) if len(words) > 1 else None
    value = 1 if name == "nounroll" else (int(value) if isinstance(value, (int, float)) else None)
    loop = _following_loop(node)
    pragma = Pragma("unroll", text, value, node.start_byte, line, loop.start_byte if loop is not None else None)
    if loop is not None:
        unit.pragmas[loop.start_byte] = pragma
