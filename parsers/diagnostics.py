"""Syntax diagnostics from tree-sitter's ERROR and MISSING nodes, with exact 1-based line:col.

An ERROR node becomes ``unexpected 'tok'`` at its first token (nested ERROR nodes are reported once,
by the outermost); a MISSING node (a token the parser had to invent) becomes ``missing ';'`` (or
``missing identifier``) where it should have been. Columns count characters, as editors do.
"""
from __future__ import annotations

import tree_sitter as ts

from kgraph.parsers.dialect import Dialect
from kgraph.parsers.errors import Diagnostic

MAX_ERRORS = 50


def position(original: bytes, byte: int, row: int | None = None) -> tuple[int, int]:
    """1-based (line, column) of a byte offset; the column counts characters of the line.

    Pass ``row`` (0-based, e.g. ``node.start_point.row``) when known: counting lines is O(file).
    """
    line_start = original.rfind(b"\n", 0, byte) + 1
    line = row + 1 if row is not None else original.count(b"\n", 0, byte) + 1
    col = len(original[line_start:byte].decode("utf-8", "replace")) + 1
    return line, col


def _first_leaf(node: ts.Node) -> ts.Node:
    while node.child_count:
        node = node.children[0]
    return node


def _shown(text: str) -> str:
    text = text.split("\n", 1)[0]
    return text if len(text) <= 20 else text[:20] + "..."


def _missing_semicolon_hint(original: bytes, byte: int) -> str:
    """`` (missing ';' on line N?)`` when the unexpected token starts a line and the previous line
    does not end a statement: the usual cause of an ERROR there."""
    before = original[:byte]
    line_start = before.rfind(b"\n") + 1
    if before[line_start:].strip():
        return ""
    prev = before[:line_start].rstrip()
    if not prev or prev[-1:] in b";{},:\\" or prev.endswith(b"*/"):
        return ""
    last_line = prev[prev.rfind(b"\n") + 1:].lstrip()
    if last_line.startswith((b"#", b"//", b"if", b"for", b"while", b"else", b"do", b"switch")):
        return ""
    line = prev.count(b"\n") + 1
    return f" (missing ';' at the end of line {line}?)"


def syntax_diagnostics(tree: ts.Tree, original: bytes, filename: str, dialect: Dialect) -> list[Diagnostic]:
    """One error Diagnostic per outermost ERROR node and per MISSING node, in source order."""
    root = tree.root_node
    if not root.has_error:
        return []
    caps = dialect.captures("errors", root)
    found: list[tuple[int, int, str]] = []
    errors = sorted(caps.get("error", []), key=lambda n: (n.start_byte, -n.end_byte))
    outer: list[tuple[ts.Node, list[ts.Node]]] = []
    for node in errors:
        if outer and node.start_byte < outer[-1][0].end_byte:
            outer[-1][1].append(node)  # nested inside the previous outermost ERROR
        else:
            outer.append((node, []))
    for node, nested in outer:
        # a nested ERROR is the token the parser could not place at all (``@`` in ``x = @``): report it
        target = min(nested, key=lambda n: (n.start_byte, n.end_byte)) if nested else node
        leaf = _first_leaf(target)
        text = original[leaf.start_byte:leaf.end_byte].decode("utf-8", "replace")
        if not text.strip():
            text = original[target.start_byte:target.end_byte].decode("utf-8", "replace").strip()
        message = f"unexpected '{_shown(text)}'" if text else "unexpected end of input"
        found.append((leaf.start_byte, leaf.start_point.row, message + _missing_semicolon_hint(original, leaf.start_byte)))
    for node in caps.get("missing", []):
        what = node.type if not node.is_named else node.type.replace("_", " ")
        found.append((node.start_byte, node.start_point.row, f"missing '{what}'" if not node.is_named else f"missing {what}"))
    found.sort()
    out = []
    for byte, row, message in found[:MAX_ERRORS]:
        line, col = position(original, byte, row)
        out.append(Diagnostic(filename, line, col, "error", message))
    if len(found) > MAX_ERRORS:
        out.append(Diagnostic(filename, out[-1].line, out[-1].col, "note",
                              f"{len(found) - MAX_ERRORS} more syntax errors not shown"))
    return out
