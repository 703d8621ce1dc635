"""Expand the function-like macros a C grammar cannot parse unexpanded, in place, before tree-sitter.

Macros are otherwise never expanded in the text (:mod:`kgraph.parsers.preprocessor`; the analysis
expands expression macros such as ``MAD(a, b, c)`` itself, :mod:`kgraph.analysis.macros`). Two kinds
of use do not parse as a call and are expanded here, as a C preprocessor would:

- **statement macros**: a body that is not an expression: it holds ``;`` or ``{``, or starts with a
  statement keyword (``for``, ``if``, ``while``, ``do``, ``switch``, ``return``...) or a declaration
  (a type then a name). ``KERNEL_LOOP(i, n) { ... }``, ``SWP(K, a, b, int, x, y)`` without a
  ``;``, ``SET_FLAG(f, i)`` whose body ends with ``;``;
- **type arguments**: any function-like macro given a type (``ALLOC(float, n)``).

Arguments are substituted (``#p`` stringised, ``a ## b`` pasted), then statement macros used in the
result are expanded in turn (at most :data:`MAX_DEPTH` levels; a macro is not expanded inside itself,
as in C). The expansion replaces the use on the use's first line; the use's own line breaks follow it,
so every other line keeps its number (``file:line`` stays exact; columns after the use on its line
move, and :meth:`Expansion.original_offset` maps them back for diagnostics). A macro whose body uses its
own name, or that is ``#undef``-ed, is not expanded.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgraph.parsers.limits import MAX_SOURCE_BYTES
from kgraph.parsers.tokens import Token, tokenize

MAX_DEPTH = 8
#: An expansion longer than this (bytes) is not made (a runaway body); the use is left as written.
MAX_EXPANSION_BYTES = 65536
#: The expanded source stays below the source limit: once the expansions would pass it, the remaining
#: uses are left as written (they then show as syntax errors, never as a blow-up).
MAX_EXPANDED_BYTES = MAX_SOURCE_BYTES - 1
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)(.*)$", re.DOTALL)
_UNDEF = re.compile(r"^[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STATEMENT_WORDS = {"for", "if", "while", "do", "switch", "return", "break", "continue", "goto", "else"}
_TYPE_WORDS = {"int", "unsigned", "signed", "char", "short", "long", "float", "double", "void", "bool", "_Bool",
               "const", "volatile", "struct", "union", "enum", "static", "half", "size_t"}


@dataclass(frozen=True)
class FunctionMacro:
    """A function-like ``#define``: name, parameters (``__VA_ARGS__`` for ``...``), body on one line."""

    name: str
    params: tuple[str, ...]
    body: str
    statement: bool


@dataclass
class Expansion:
    """The result of :func:`expand`: ``text`` (the source with the uses expanded) and the ``edits``
    made, as ``(start, end, replacement)`` of the input in increasing order."""

    text: str
    edits: list[tuple[int, int, bytes]] = field(default_factory=list)

    def original_offset(self, offset: int) -> int:
        """The byte offset in the input of byte ``offset`` of ``text`` (inside an expansion: its use)."""
        delta = 0
        for start, end, new in self.edits:
            new_start = start + delta
            if offset < new_start:
                break
            if offset < new_start + len(new):
                return start
            delta += len(new) - (end - start)
        return offset - delta


def macros_of(source: bytes, is_type) -> dict[str, FunctionMacro]:
    """The function-like macros ``#define``-d in ``source`` (the first definition of a name wins; a
    name ``#undef``-ed anywhere is left out). ``is_type(word)``: whether a word names a type."""
    out: dict[str, FunctionMacro] = {}
    undone: set[str] = set()
    for tok in tokenize(source, keep_preprocessor=True):
        if tok.kind != "preproc":
            continue
        line = _COMMENT.sub(" ", tok.text.replace("\\\r\n", " ").replace("\\\n", " "))
        u = _UNDEF.match(line)
        if u:
            undone.add(u.group(1))
            continue
        m = _DEFINE.match(line)
        if not m or m.group(1) in out:
            continue
        params = tuple("__VA_ARGS__" if p.strip() == "..." else p.strip() for p in m.group(2).split(",") if p.strip())
        body = " ".join(m.group(3).split())
        out[m.group(1)] = FunctionMacro(m.group(1), params, body, _is_statement(body, is_type))
    return {k: v for k, v in out.items() if k not in undone and not re.search(rf"\b{k}\b", v.body)}


def _is_statement(body: str, is_type) -> bool:
    """Whether a macro body is not one expression (see the module doc)."""
    toks = tokenize(body.encode("utf-8"))
    if not toks:
        return False
    if any(t.text in (";", "{") for t in toks):
        return True
    first = toks[0].text
    if first in _STATEMENT_WORDS:
        return True
    return (first in _TYPE_WORDS or is_type(first)) and len(toks) > 1 and toks[1].kind == "id"


def _call_args(tokens: list[Token], i: int) -> tuple[list[tuple[int, int]], int] | None:
    """Argument token ranges of the use whose ``(`` is ``tokens[i]``, and the index of its ``)``."""
    depth, args, start = 0, [], i + 1
    for j in range(i, len(tokens)):
        t = tokens[j].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                args.append((start, j))
                return args, j
        elif t == "," and depth == 1:
            args.append((start, j))
            start = j + 1
    return None


def _substitute(macro: FunctionMacro, args: list[str]) -> str | None:
    params = list(macro.params)
    variadic = bool(params) and params[-1] == "__VA_ARGS__"
    if args == [""] and not params:
        args = []
    if len(args) != len(params) and not (variadic and len(args) >= len(params) - 1):
        return None
    values = dict(zip(params, args))
    if variadic:
        values["__VA_ARGS__"] = ", ".join(args[len(params) - 1:])
    body = re.sub(r"#\s*([A-Za-z_]\w*)", lambda m: '"' + values[m.group(1)].replace('"', '\\"') + '"'
                  if m.group(1) in values else m.group(0), macro.body.replace("##", "\0"))
    body = re.sub(r"[A-Za-z_]\w*", lambda m: values.get(m.group(0), m.group(0)), body)
    return re.sub(r"\s*\0\s*", "", body)


def _needs_expansion(macro: FunctionMacro, args: list[str], is_type) -> bool:
    return macro.statement or any(a.split() and all(w in _TYPE_WORDS or is_type(w) for w in a.replace("*", " ").split())
                                  for a in args)


def _expand_text(text: str, macros: dict[str, FunctionMacro], is_type, hidden: frozenset, depth: int,
                 memo: dict) -> str:
    """``text`` (one expansion) with the statement macros it uses expanded in turn."""
    if depth >= MAX_DEPTH:
        return text
    data = text.encode("utf-8")
    edits = _edits(data, macros, is_type, hidden, depth, MAX_EXPANSION_BYTES, memo)
    return _apply(data, edits).decode("utf-8", "replace") if edits else text


def _expansion(macro: FunctionMacro, args: list[str], macros, is_type, hidden: frozenset, depth: int,
               memo: dict) -> bytes | None:
    """The text one use expands to (on one line), or None; the same use is expanded once (``memo``)."""
    key = (macro.name, tuple(args), hidden, depth)
    if key not in memo:
        body = _substitute(macro, args) if _needs_expansion(macro, args, is_type) else None
        if body is not None:
            body = _expand_text(body, macros, is_type, hidden | {macro.name}, depth + 1, memo)
            body = " ".join(body.split()).encode("utf-8")
        memo[key] = body if body is None or len(body) <= MAX_EXPANSION_BYTES else None
    return memo[key]


def _edits(source: bytes, macros: dict[str, FunctionMacro], is_type, hidden: frozenset = frozenset(),
           depth: int = 0, budget: int = MAX_EXPANDED_BYTES, memo: dict | None = None
           ) -> list[tuple[int, int, bytes]]:
    """The uses to expand in ``source``, while the result stays within ``budget`` bytes."""
    memo = {} if memo is None else memo
    tokens = tokenize(source)
    edits: list[tuple[int, int, bytes]] = []
    size, i = len(source), 0
    while i < len(tokens):
        tok = tokens[i]
        macro = macros.get(tok.text) if tok.kind == "id" and tok.text not in hidden else None
        if macro is None or i + 1 >= len(tokens) or tokens[i + 1].text != "(":
            i += 1
            continue
        found = _call_args(tokens, i + 1)
        if found is None:
            break
        ranges, close = found
        args = [source[tokens[a].start:tokens[b - 1].end].decode("utf-8", "replace") if b > a else ""
                for a, b in ranges]
        new = _expansion(macro, args, macros, is_type, hidden, depth, memo)
        end = tokens[close].end
        if new is not None:
            if size + len(new) - (end - tok.start) > budget:
                break  # the expanded source would pass the source limit: the rest stays as written
            size += len(new) - (end - tok.start)
            edits.append((tok.start, end, new + b"\n" * source.count(b"\n", tok.start, end)))
            i = close + 1
            continue
        i += 1
    return edits


def _apply(source: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    parts, last = [], 0
    for start, end, new in edits:
        parts += [source[last:start], new]
        last = end
    parts.append(source[last:])
    return b"".join(parts)


def expand(text: str, is_type) -> Expansion:
    """``text`` with the uses of statement macros and of macros given a type expanded (module doc).
    ``is_type(word)``: whether a word names a type of the dialect. Text without any is returned as is."""
    data = text.encode("utf-8")
    if b"define" not in data:
        return Expansion(text)
    macros = macros_of(data, is_type)
    if not macros:
        return Expansion(text)
    edits = _edits(data, macros, is_type)
    if not edits:
        return Expansion(text)
    return Expansion(_apply(data, edits).decode("utf-8"), edits)


def apply_edits(text: str, edits: list[tuple[int, int, bytes]]) -> str:
    """``text`` with ``edits`` (of an :class:`Expansion` made on a text of the same byte offsets)."""
    return _apply(text.encode("utf-8"), edits).decode("utf-8") if edits else text
