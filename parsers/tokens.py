"""A light C-family lexer over bytes: identifiers, numbers, strings and punctuation with byte spans.

Comments and preprocessor lines are skipped (not yielded), so words inside them are never taken for
qualifiers. Used by :mod:`kgraph.parsers.masking` (before tree-sitter runs) and :mod:`kgraph.parsers.constexpr`.
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
