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

from dataclasses import dataclass

from parsers.tokens import Token, tokenize

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


def find_qualifiers(source: bytes, qualifiers: dict[str, dict], tokens: list[Token] | None = None) -> list[QualifierSpan]:
    """Every qualifier of the dialect table ``qualifiers`` (spelling → entry) used as a qualifier."""
    if not qualifiers:
        return []
    tokens = tokenize(source) if tokens is None else tokens
    found: list[tuple[int, dict]] = []
    for i, tok in enumerate(tokens):
        entry = qualifiers.get(tok.text) if tok.kind == "id" else None
        if entry is None:
            continue
        if not entry.get("keyword", False):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            prev = tokens[i - 1].text if i > 0 else ""
            if nxt is None or nxt.kind != "id" or prev in _NOT_AFTER:
                continue
        found.append((i, entry))
    spans = []
    qualifier_idx = {i for i, _ in found}
    for i, entry in found:
        j = i + 1
        while j in qualifier_idx:
            j += 1
        tok = tokens[i]
        nxt_start = tokens[j].start if j < len(tokens) else tok.end
        spans.append(QualifierSpan(tok.text, entry["canonical"], entry.get("address_space"), tok.start, tok.end,
                                   bool(entry.get("mask", False)), nxt_start))
    return spans


def mask(source: bytes, spans: list[QualifierSpan]) -> bytes:
    """``source`` with every masked qualifier replaced by spaces of the same byte length."""
    buf = bytearray(source)
    for s in spans:
        if s.masked:
            buf[s.start:s.end] = b" " * (s.end - s.start)
    return bytes(buf)
