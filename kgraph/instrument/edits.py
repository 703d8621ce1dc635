"""Byte-span edits of a source text: insertions and deletions keyed by tree-sitter offsets.

The instrumenter never rewrites code with regular expressions; every change is an insertion at
(or a deletion of) a byte span taken from a tree-sitter node, applied once to the original bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(order=True, frozen=True)
class _Insertion:
    pos: int
    phase: int  # 0: closes something (goes first at a position), 1: opens something
    rank: int   # closings: -depth (inner first); openings: depth (outer first)
    seq: int
    text: str = field(compare=False)


class SourceEdits:
    """Collects insertions and deletions against one original byte string and applies them.

    Args:
        source: the original source bytes; every offset refers to it.

    At one position, closing insertions come before opening ones; among closings the deeper
    (inner) node's text comes first, among openings the shallower (outer) one, so nested
    rewrites of nested nodes stay properly bracketed.
    """

    def __init__(self, source: bytes):
        self.source = source
        self._insertions: list[_Insertion] = []
        self._deletions: list[tuple[int, int]] = []
        self._seq = 0

    def open(self, pos: int, text: str, depth: int = 0) -> None:
        """Insert ``text`` at ``pos`` as the start of a bracket around the node at ``depth``."""
        self._add(pos, 1, depth, text)

    def close(self, pos: int, text: str, depth: int = 0) -> None:
        """Insert ``text`` at ``pos`` as the end of a bracket around the node at ``depth``."""
        self._add(pos, 0, -depth, text)

    def delete(self, start: int, end: int) -> None:
        """Remove the original bytes ``[start, end)`` (insertions at ``start`` are kept)."""
        if not 0 <= start <= end <= len(self.source):
            raise ValueError(f"deletion [{start}, {end}) outside the source")
        self._deletions.append((start, end))

    def _add(self, pos: int, phase: int, rank: int, text: str) -> None:
        if not 0 <= pos <= len(self.source):
            raise ValueError(f"insertion at {pos} outside the source")
        self._insertions.append(_Insertion(pos, phase, rank, self._seq, text))
        self._seq += 1

    def apply(self) -> str:
        """The edited text (UTF-8 decoded)."""
        deletions = sorted(self._deletions)
        for (s0, e0), (s1, _) in zip(deletions, deletions[1:]):
            if s1 < e0:
                raise ValueError(f"overlapping deletions at {s0} and {s1}")
        for ins in self._insertions:
            for s, e in deletions:
                if s < ins.pos < e:
                    raise ValueError(f"insertion at {ins.pos} inside deleted span [{s}, {e})")
        out: list[bytes] = []
        cursor = 0
        inserts = sorted(self._insertions)
        k = 0
        for s, e in deletions + [(len(self.source), len(self.source))]:
            while k < len(inserts) and inserts[k].pos <= s:
                ins = inserts[k]
                out.append(self.source[cursor:ins.pos])
                cursor = ins.pos
                out.append(ins.text.encode("utf-8"))
                k += 1
            out.append(self.source[cursor:s])
            cursor = max(cursor, e)
        out.append(self.source[cursor:])
        return b"".join(out).decode("utf-8")


def depth_below(node, ancestor) -> int:
    """How many parent steps lead from ``node`` up to ``ancestor`` (0 when they are the same)."""
    depth = 0
    while node is not None and node != ancestor:
        node = node.parent
        depth += 1
    return depth
