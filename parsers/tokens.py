"""A light C-family lexer over bytes: identifiers, numbers, strings and punctuation with byte spans.

Comments and preprocessor lines are skipped (not yielded), so words inside them are never taken for
qualifiers. Used by :mod:`kgraph.parsers.masking` (before tree-sitter runs) and :mod:`kgraph.parsers.constexpr`.
:func:`position` turns a byte offset into the 1-based line and character column every diagnostic shows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    rb"""
      (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    | (?P<preproc>(?:(?<=\n)|\A)[ \t]*\#(?:\\\r?\n|/\*.*?(?:\*/|\Z)|[^\n])*)
    | (?P<str>"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)
    | (?P<id>[A-Za-z_][A-Za-z_0-9]*)
    | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*)
    | (?P<punct>->|<<|>>|<=|>=|==|!=|&&|\|\||\S)
    | (?P<space>\s+)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` in id|num|str|punct, ``text`` (str), ``start``/``end`` byte offsets."""

    kind: str
    text: str
    start: int
    end: int


def tokenize(source: bytes, *, keep_preprocessor: bool = False) -> list[Token]:
    """Tokens of ``source`` in order; comments (and preprocessor lines unless asked) are dropped."""
    out = []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        if kind in ("space", "comment") or (kind == "preproc" and not keep_preprocessor):
            continue
        out.append(Token(kind, m.group().decode("utf-8", "replace"), m.start(), m.end()))
    return out


def position(original: bytes, byte: int, row: int | None = None) -> tuple[int, int]:
    """1-based (line, column) of a byte offset; the column counts characters of the line.

    Pass ``row`` (0-based, e.g. ``node.start_point.row``) when known: counting lines is O(file).
    """
    line_start = original.rfind(b"\n", 0, byte) + 1
    line = row + 1 if row is not None else original.count(b"\n", 0, byte) + 1
    col = len(original[line_start:byte].decode("utf-8", "replace")) + 1
    return line, col
