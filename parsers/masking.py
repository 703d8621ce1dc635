"""Find a dialect's qualifiers in the token stream and blank the ones the grammar does not know.

OpenCL C is parsed with the C grammar, so ``__kernel``, ``__global``, ``local``, ``read_only``, ...
are replaced by spaces of equal length before parsing: byte offsets and line:column stay exact. Each
qualifier is kept (:class:`QualifierSpan`) and later attached to the declaration that follows it.

The plain words (``global``, ``local``, ``constant``, ``private``, ``kernel``, ``read_only``, ...) are
ordinary identifiers in C. They are taken for qualifiers only where a qualifier can stand: the next
token is an identifier or keyword (a type name, ``const``, another qualifier) and the previous token is
not a member access (``.``/``->``) or a tag keyword. ``int local = 0;``, ``x = local[i];``,
``f(global, n)`` and ``s.kernel`` stay identifiers; ``local float t[16];`` is a qualifier.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_NOT_AFTER = {".", "->", "struct", "union", "enum", "goto"}


@dataclass(frozen=True)
class QualifierSpan:
    """One qualifier occurrence: its spelling, canonical name, address space (or None), byte span,
    whether it was blanked, and ``next_start``: the byte offset of the token it qualifies."""

    spelling: str
    canonical: str
    address_space: str | None
    start: int
    end: int
    masked: bool
    next_start: int


_SKIP = re.compile(rb"""//[^\n]*|/\*.*?(?:\*/|\Z)|(?:(?<=\n)|\A)[ \t]*\#(?:\\\r?\n|/\*.*?(?:\*/|\Z)|[^\n])*"""
                   rb"""|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?""", re.DOTALL)
_SPACE_OR_COMMENT = re.compile(rb"(?:\s+|//[^\n]*|/\*.*?(?:\*/|\Z))+", re.DOTALL)
_WORD_BEFORE = re.compile(rb"([A-Za-z_][A-Za-z_0-9]*|->|\S)\s*\Z")
_WORDS: dict[tuple[str, ...], re.Pattern] = {}


def _word_regex(names: tuple[str, ...]) -> re.Pattern:
    if names not in _WORDS:
        alt = b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))
        _WORDS[names] = re.compile(rb"(?<![A-Za-z0-9_])(?:" + alt + rb")(?![A-Za-z0-9_])")
    return _WORDS[names]


def find_qualifiers(source: bytes, qualifiers: dict[str, dict]) -> list[QualifierSpan]:
    """Every qualifier of the dialect table ``qualifiers`` (spelling → entry) used as a qualifier.

    Only the qualifier words are looked at (outside comments, strings and preprocessor lines), with
    their neighbouring tokens: a few regex scans, no full tokenisation.
    """
    if not qualifiers:
        return []
    skips = [(m.start(), m.end()) for m in _SKIP.finditer(source)]
    skip_starts = [a for a, _ in skips]
    hits = []
    for m in _word_regex(tuple(qualifiers)).finditer(source):
        k = bisect.bisect_right(skip_starts, m.start()) - 1
        if k >= 0 and m.start() < skips[k][1]:
            continue
        word = m.group().decode()
        entry = qualifiers[word]
        gap = _SPACE_OR_COMMENT.match(source, m.end())
        nxt = gap.end() if gap else m.end()
        if not entry.get("keyword", False):
            prev = _WORD_BEFORE.search(source, max(0, m.start() - 256), m.start())
            prev_text = prev.group(1).decode("utf-8", "replace") if prev else ""
            if nxt >= len(source) or not (source[nxt:nxt + 1].isalpha() or source[nxt:nxt + 1] == b"_") \
                    or prev_text in _NOT_AFTER:
                continue
        hits.append([word, entry, m.start(), m.end(), nxt])
    for i in range(len(hits) - 2, -1, -1):  # a qualifier followed by another qualifies what that one does
        if hits[i][4] == hits[i + 1][2]:
            hits[i][4] = hits[i + 1][4]
    return [QualifierSpan(w, e["canonical"], e.get("address_space"), a, b, bool(e.get("mask", False)), n)
            for w, e, a, b, n in hits]


def respell(source: bytes, spellings: dict[str, str]) -> bytes:
    """``source`` with each alternate keyword spelling (``__const``, ``__restrict``: GNU spellings a
    compiler accepts, the grammar not everywhere) replaced by its keyword, padded with spaces to the
    same byte length; comments, strings and preprocessor lines are left alone."""
    if not spellings or not any(w.encode() in source for w in spellings):
        return source
    skips = [(m.start(), m.end()) for m in _SKIP.finditer(source)]
    skip_starts = [a for a, _ in skips]
    buf = bytearray(source)
    for m in _word_regex(tuple(spellings)).finditer(source):
        k = bisect.bisect_right(skip_starts, m.start()) - 1
        if k >= 0 and m.start() < skips[k][1]:
            continue
        keyword = spellings[m.group().decode()].encode()
        buf[m.start():m.end()] = keyword.ljust(m.end() - m.start())
    return bytes(buf)


def mask(source: bytes, spans: list[QualifierSpan]) -> bytes:
    """``source`` with every masked qualifier replaced by spaces of the same byte length."""
    buf = bytearray(source)
    for s in spans:
        if s.masked:
            buf[s.start:s.end] = b" " * (s.end - s.start)
    return bytes(buf)


_EMPTY_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z_0-9]*)[ \t]*(?:/\*.*?\*/[ \t]*|//[^\n]*)?$",
                           re.MULTILINE)
_UNDEF = re.compile(rb"^[ \t]*#[ \t]*undef[ \t]+([A-Za-z_][A-Za-z_0-9]*)", re.MULTILINE)


def blank_empty_macros(source: bytes) -> bytes:
    """``source`` with each use of an object-like macro whose body is empty (``#define X87_VOLATILE``, a
    qualifier a build may fill in) replaced by spaces of the same byte length, as the preprocessor would drop it:
    ``X87_VOLATILE float s = x + y;`` then parses as a declaration. Uses in comments, strings and preprocessor
    lines stay; a macro also ``#undef``-ed (or defined with a body elsewhere) is left alone."""
    names = {m.group(1) for m in _EMPTY_DEFINE.finditer(source)}
    if not names:
        return source
    names -= {m.group(1) for m in _UNDEF.finditer(source)}
    names -= {m.group(1) for m in re.finditer(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z_0-9]*)[ \t(]+\S",
                                                 source, re.MULTILINE)}
    if not names:
        return source
    skips = [(m.start(), m.end()) for m in _SKIP.finditer(source)]
    skip_starts = [a for a, _ in skips]
    buf = bytearray(source)
    for m in _word_regex(tuple(sorted(n.decode() for n in names))).finditer(source):
        k = bisect.bisect_right(skip_starts, m.start()) - 1
        if k < 0 or m.start() >= skips[k][1]:
            buf[m.start():m.end()] = b" " * (m.end() - m.start())
    return bytes(buf)
