"""Syntax diagnostics from tree-sitter's ERROR and MISSING nodes, with exact 1-based line:col.

An ERROR node becomes ``unexpected 'tok'`` at its first token (nested ERROR nodes are reported once,
by the outermost); a MISSING node (a token the parser had to invent) becomes ``missing ';'`` (or
``missing identifier``) where it should have been. Columns count characters, as editors do.
"""
from __future__ import annotations

import tree_sitter as ts

from parsers.dialect import Dialect
from parsers.errors import Diagnostic

MAX_ERRORS = 50


def position(original: bytes, byte: int) -> tuple[int, int]:
    """1-based (line, column) of a byte offset; the column counts characters of the line."""
    line_start = original.rfind(b"\n", 0, byte) + 1
    line = original.count(b"\n", 0, byte) + 1
    col = len(original[line_start:byte].decode("utf-8", "replace")) + 1
    return line, col


def _first_leaf(node: ts.Node) -> ts.Node:
    while node.child_count:
        node = node.children[0]
    return node


def _shown(text: str) -> str:
    text = text.split("\n", 1)[0]
    return text if len(text) <= 20 else text[:20] + "..."


def syntax_diagnostics(tree: ts.Tree, original: bytes, filename: str, dialect: Dialect) -> list[Diagnostic]:
    """One error Diagnostic per outermost ERROR node and per MISSING node, in source order."""
    root = tree.root_node
    if not root.has_error:
        return []
    caps = dialect.captures("errors", root)
    found: list[tuple[int, str]] = []
    errors = sorted(caps.get("error", []), key=lambda n: (n.start_byte, -n.end_byte))
    covered_until = -1
    for node in errors:
        if node.start_byte < covered_until:
            continue
        covered_until = max(covered_until, node.end_byte)
        leaf = _first_leaf(node)
        text = original[leaf.start_byte:max(leaf.end_byte, leaf.start_byte)].decode("utf-8", "replace")
        if not text.strip():
            text = original[node.start_byte:node.end_byte].decode("utf-8", "replace").strip()
        message = f"unexpected '{_shown(text)}'" if text else "unexpected end of input"
        found.append((leaf.start_byte, message))
    for node in caps.get("missing", []):
        what = node.type if not node.is_named else node.type.replace("_", " ")
        found.append((node.start_byte, f"missing '{what}'" if not node.is_named else f"missing {what}"))
    found.sort()
    out = []
    for byte, message in found[:MAX_ERRORS]:
        line, col = position(original, byte)
        out.append(Diagnostic(filename, line, col, "error", message))
    if len(found) > MAX_ERRORS:
        out.append(Diagnostic(filename, out[-1].line, out[-1].col, "note",
                              f"{len(found) - MAX_ERRORS} more syntax errors not shown"))
    return out
