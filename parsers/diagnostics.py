"""Syntax diagnostics from tree-sitter's ERROR and MISSING nodes, with exact 1-based line:col.

An ERROR node becomes ``unexpected 'tok'`` at its first token (nested ERROR nodes are reported once,
by the outermost); a MISSING node (a token the parser had to invent) becomes ``missing ';'`` (or
``missing identifier``) where it should have been. Columns count characters, as editors do.
"""
from __future__ import annotations

import tree_sitter as ts

from kgraph.parsers.dialect import Dialect
from kgraph.parsers.errors import Diagnostic
from kgraph.parsers.limits import unclosed_brace
from kgraph.parsers.tokens import position  # noqa: F401 - defined with the lexer; re-exported here

MAX_ERRORS = 50


def _first_leaf(node: ts.Node) -> ts.Node:
    while node.child_count:
        node = node.children[0]
    return node


def _shown(text: str) -> str:
    text = text.split("\n", 1)[0]
    return text if len(text) <= 20 else text[:20] + "..."


def _missing_semicolon_hint(original: bytes, byte: int, row: int) -> str:
    """`` (missing ';' on line N?)`` when the unexpected token starts a line and the previous line
    does not end a statement: the usual cause of an ERROR there. ``row``: the token's 0-based line."""
    line_start = original.rfind(b"\n", 0, byte) + 1
    if original[line_start:byte].strip():
        return ""
    prev_end = len(original[:line_start].rstrip())  # the previous non-blank line ends here
    if not prev_end or original[prev_end - 1:prev_end] in b";{},:\\" or original.endswith(b"*/", 0, prev_end):
        return ""
    prev_start = original.rfind(b"\n", 0, prev_end) + 1
    if original[prev_start:prev_end].lstrip().startswith((b"#", b"//", b"if", b"for", b"while", b"else", b"do",
                                                           b"switch")):
        return ""
    line = row - original.count(b"\n", prev_start, line_start) + 1
    return f" (missing ';' at the end of line {line}?)"


def syntax_diagnostics(tree: ts.Tree, original: bytes, filename: str, dialect: Dialect) -> list[Diagnostic]:
    """One error Diagnostic per outermost ERROR node and per MISSING node, in source order; plus, when
    recovery hid it, the first ``{`` that is never closed."""
    root = tree.root_node
    if not root.has_error:
        return []
    caps = dialect.captures("errors", root)
    found: list[tuple[int, int, str, bool]] = []
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
            text = original[target.start_byte:min(target.end_byte, target.start_byte + 200)].decode(
                "utf-8", "replace").strip()
        message = f"unexpected '{_shown(text)}'" if text else "unexpected end of input"
        found.append((leaf.start_byte, leaf.start_point.row, message, True))
    missing_brace = False
    for node in caps.get("missing", []):
        what = node.type if not node.is_named else node.type.replace("_", " ")
        missing_brace = missing_brace or what == "}"
        found.append((node.start_byte, node.start_point.row,
                      f"missing '{what}'" if not node.is_named else f"missing {what}", False))
    if not missing_brace:
        brace = unclosed_brace(original)
        if brace is not None:
            found.append((brace, None, "unclosed '{' (no matching '}' before the end of the file)", False))
    found.sort(key=lambda f: (f[0], f[2]))
    out = []
    for byte, row, message, hint in found[:MAX_ERRORS]:
        line, col = position(original, byte, row)
        if hint:
            message += _missing_semicolon_hint(original, byte, line - 1)
        out.append(Diagnostic(filename, line, col, "error", message))
    if len(found) > MAX_ERRORS:
        out.append(Diagnostic(filename, out[-1].line, out[-1].col, "note",
                              f"{len(found) - MAX_ERRORS} more syntax errors not shown"))
    return out
