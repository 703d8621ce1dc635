"""The front end's documented limits, in one place (docs/PARSERS.md, "Limits").

Every limit is checked *before* the work that grows with it, in time linear in the input, and a source
that exceeds one is refused with a :class:`~kgraph.parsers.errors.LimitError` (a ``SourceError`` whose
one diagnostic gives ``file:line:col``, the limit's name and its value):

- the size is checked on the file's ``stat`` (or the text's length) before anything is read or parsed;
- nesting depth, statement count, token count (a lower bound of the syntax-tree size) and literal
  constants are checked on the bytes before tree-sitter runs
  (:func:`check_source`: a few C-speed passes; comments, strings and preprocessor lines do not count);
- syntax-tree depth and size are checked on the tree before any query walks it (:func:`check_tree`,
  which only descends into subtrees big enough to break a limit);
- constant expressions are folded with every intermediate value kept within ``MAX_CONSTANT_BITS``
  (:mod:`kgraph.parsers.constexpr`), so folding never builds a huge number; attribute arguments and
  array sizes that leave the range are refused (:func:`constant_error`).

Everything downstream (graphs, static analysis, instrumentation) may rely on these bounds.
"""
from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Callable

from kgraph.parsers.errors import Diagnostic, LimitError
from kgraph.parsers.masking import _SKIP
from kgraph.parsers.tokens import position

# --- the limits -------------------------------------------------------------------------------------
MAX_SOURCE_BYTES = 4 * 1024 * 1024
"""Bytes of one source file (UTF-8); ``parse_source(..., max_bytes=)`` may lower or raise it per call."""

MAX_NESTING_DEPTH = 256
"""Brackets ``{ ( [`` open at one point of the source (clang's default ``-fbracket-depth`` is 256)."""

MAX_SYNTAX_DEPTH = 4096
"""Levels of the syntax tree: also bounds nesting without brackets (``if (a) if (b) ...``, ``else if``
chains, ``a + b + c + ...`` operator chains, ``- - - x``)."""

MAX_STATEMENTS = 5_000
"""Statements in one source, counted as its ``;`` and ``{`` tokens (each simple statement ends with one
``;``, each block opens with one ``{``; a ``for (;;)`` header counts two, an initializer list one)."""

MAX_FUNCTIONS = 500
"""Function definitions (kernels and helpers) in one source: each kernel gets a graph and a static
analysis of its own, whose fixed cost (a few ms) dominates files of many tiny kernels."""

MAX_SYNTAX_NODES = 100_000
"""Nodes of the syntax tree of one source: bounds the graphs built from it, and what one statement can
hold (an initializer list, or a call's arguments, of about 50 000 elements at most)."""

MAX_CONSTANT_BITS = 64
"""Integer literals and every folded intermediate value: ``|v| < 2**64`` (C's widest integer type);
shift counts ``0 <= n < 64``; floating literals and folded floats finite (double range)."""

FOLD_TOKEN_BUDGET = 500_000
"""Not a refusal but a work budget: tokens of macro expansion that constant folding may produce for one
source, all folds together (each expression at most 20 000). Past it, expressions that use macros are
left unfolded (``fold`` returns None), so many macros that expand one huge macro cannot add up."""

LIMITS = {name: value for name, value in globals().items() if name.startswith("MAX_")}
"""Every limit by name (what docs/PARSERS.md lists; tests check the two agree)."""

# --- lexical pre-scan --------------------------------------------------------------------------------
# _SKIP (from masking): comments, preprocessor lines (with continuations) and string/char literals,
# whose brackets and semicolons do not count.
_ALL = bytes(range(256))
_NOT_BRACKETS = bytes(b for b in _ALL if b not in b"{}()[]")
_SIGN = bytes.maketrans(b"{([})]", b"\x01\x01\x01\xff\xff\xff")  # as signed chars: +1 / -1
# Number tokens that may not fit: >= 17 hex digits in a row, 20 decimal digits, or an exponent of 3+
# digits (a superset of the literals out of range). The first item is a character class so the regex
# engine skips ahead fast; only these few tokens are evaluated (exactly) by the ``literal_fits`` check.
_SUSPECT_NUMBER = re.compile(
    rb"[.0-9](?<![A-Za-z0-9_.].)[A-Za-z0-9_.]*?(?:[0-9A-Fa-f]{17}|[eEpP]\+?[0-9]{3}|[0-9]{20})"
    rb"[A-Za-z_0-9.]*(?:(?<=[eEpP])[+-][A-Za-z_0-9.]*)?")
# Tokens as the grammar sees them (every one is a leaf of the syntax tree, so their count is a lower
# bound of its size), and the character classes of a cheap upper bound of their count.
_TOKEN = re.compile(rb"[A-Za-z_\x80-\xff][A-Za-z_0-9\x80-\xff]*|\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*"
                    rb"|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\.\.|::|\S")
_CLASSES = bytes.maketrans(b"".join(bytes([b]) for b in _ALL),
                           bytes(ord("a") if chr(b).isalnum() and b < 128 or b == ord("_") else
                                 ord(" ") if chr(b) in " \t\r\n\f\v" else ord(".") for b in _ALL))
_CHUNK = 1 << 16


def _code_only(source: bytes) -> bytes:
    """``source`` with comments, preprocessor lines and literals blanked (same length)."""
    return _SKIP.sub(lambda m: b" " * (m.end() - m.start()), source)


def _nth(code: bytes, n: int, keep: bytes) -> int:
    """Byte offset of the ``n``-th (1-based) byte of ``code`` that is one of ``keep`` (it exists)."""
    drop = bytes(b for b in _ALL if b not in keep)
    start = 0
    while True:
        chunk = code[start:start + _CHUNK]
        k = len(chunk.translate(None, drop))
        if k >= n:
            for i, byte in enumerate(chunk):
                if byte in keep:
                    n -= 1
                    if n == 0:
                        return start + i
        n -= k
        start += _CHUNK


def _deepest_bracket(code: bytes, limit: int) -> int | None:
    """Byte offset of the first bracket opened beyond ``limit`` levels, or None."""
    signs = array("b")
    signs.frombytes(code.translate(None, _NOT_BRACKETS).translate(_SIGN))
    if not signs or max(accumulate(signs)) <= limit:
        return None
    k = next(i for i, depth in enumerate(accumulate(signs)) if depth > limit)
    return _nth(code, k + 1, b"{}()[]")


def _tokens_at_most(code: bytes) -> int:
    """An upper bound of the tokens of ``code`` in C-speed passes: word runs plus other characters."""
    cls = code.translate(_CLASSES)
    return cls.count(b" a") + cls.count(b".a") + (cls[:1] == b"a") + cls.count(b".")


def _refuse(filename: str, source: bytes, offset: int, message: str) -> LimitError:
    line, col = position(source, offset)
    return LimitError([Diagnostic(filename, line, col, "error", message)])


def check_source(source: bytes, filename: str = "<string>",
                 literal_fits: Callable[[str], bool] | None = None) -> None:
    """Refuse ``source`` (UTF-8 bytes) before it is parsed if it nests brackets deeper than
    :data:`MAX_NESTING_DEPTH`, has more than :data:`MAX_STATEMENTS` statements or (given
    ``literal_fits``, :func:`kgraph.parsers.constexpr.literal_fits`) a number literal out of range
    (:data:`MAX_CONSTANT_BITS`).

    Raises:
        LimitError: with the position of the first bracket, statement or literal past the limit.
    """
    opens = source.count(b"{") + source.count(b"(") + source.count(b"[")
    statements = source.count(b";") + source.count(b"{")
    suspects = literal_fits is not None and _SUSPECT_NUMBER.search(source) is not None
    many_tokens = _tokens_at_most(source) > MAX_SYNTAX_NODES
    if opens <= MAX_NESTING_DEPTH and statements <= MAX_STATEMENTS and not suspects and not many_tokens:
        return  # the raw counts bound the real ones (comments and strings only add to them)
    code = _code_only(source)
    at = _deepest_bracket(code, MAX_NESTING_DEPTH)
    if at is not None:
        raise _refuse(filename, source, at, f"'{chr(code[at])}' nested more than {MAX_NESTING_DEPTH} brackets deep "
                                            f"(limit MAX_NESTING_DEPTH)")
    if code.count(b";") + code.count(b"{") > MAX_STATEMENTS:
        at = _nth(code, MAX_STATEMENTS + 1, b";{")
        raise _refuse(filename, source, at, f"more than {MAX_STATEMENTS} statements in one source (limit "
                                            f"MAX_STATEMENTS, counted as ';' and '{{' tokens); split the file")
    if many_tokens and _tokens_at_most(code) > MAX_SYNTAX_NODES:
        _, tokens = _TOKEN.subn(b"", code)  # exact, in C (no list of millions of tokens)
        if tokens > MAX_SYNTAX_NODES:
            at = next(m.start() for i, m in enumerate(_TOKEN.finditer(code)) if i == MAX_SYNTAX_NODES)
            raise _refuse(filename, source, at, f"more than {MAX_SYNTAX_NODES} syntax nodes in one source (limit "
                                                f"MAX_SYNTAX_NODES; counted before parsing: its {tokens} tokens are "
                                                f"nodes of the tree); split the file or shorten its tables")
    if suspects:
        for m in _SUSPECT_NUMBER.finditer(code):
            text = m.group().decode("ascii", "replace")
            if not literal_fits(text):
                raise _refuse(filename, source, m.start(), f"constant '{_short(text)}' out of range (limit "
                                                           f"MAX_CONSTANT_BITS: integers below 2**{MAX_CONSTANT_BITS}, "
                                                           f"finite floating values)")


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


# --- the syntax tree ---------------------------------------------------------------------------------
def check_tree(root, filename: str, source: bytes) -> None:
    """Refuse a parsed tree deeper than :data:`MAX_SYNTAX_DEPTH` or larger than :data:`MAX_SYNTAX_NODES`.

    Only subtrees that could break a limit are visited: a subtree's height is at most its node count
    (``descendant_count``, stored by tree-sitter), so one with ``depth + count <= MAX_SYNTAX_DEPTH`` is
    skipped whole.

    Raises:
        LimitError: at the first node (in source order) past the depth, or the node where the count passes.
    """
    total = root.descendant_count
    if total > MAX_SYNTAX_NODES:
        node, rank = root, MAX_SYNTAX_NODES  # find the node of pre-order rank MAX_SYNTAX_NODES + 1
        while rank > 0 and node.child_count:
            rank -= 1
            for child in node.children:
                size = child.descendant_count
                if rank < size:
                    node = child
                    break
                rank -= size
            else:
                break
        raise _refuse(filename, source, node.start_byte,
                      f"more than {MAX_SYNTAX_NODES} syntax nodes in one source (limit MAX_SYNTAX_NODES; this "
                      f"source has {total}); split the file or shorten its tables")
    if total <= MAX_SYNTAX_DEPTH:
        return
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth + node.descendant_count - 1 <= MAX_SYNTAX_DEPTH:
            continue
        if depth > MAX_SYNTAX_DEPTH:
            raise _refuse(filename, source, node.start_byte,
                          f"syntax nested more than {MAX_SYNTAX_DEPTH} levels deep (limit MAX_SYNTAX_DEPTH: "
                          f"statements inside statements, operator chains)")
        children = node.children
        stack.extend((child, depth + 1) for child in reversed(children))


def check_functions(functions: list, filename: str, source: bytes) -> None:
    """Refuse more than :data:`MAX_FUNCTIONS` function definitions (``functions``: their nodes, in order)."""
    if len(functions) > MAX_FUNCTIONS:
        raise _refuse(filename, source, functions[MAX_FUNCTIONS].start_byte,
                      f"more than {MAX_FUNCTIONS} function definitions in one source (limit MAX_FUNCTIONS; "
                      f"this source has {len(functions)}); split the file")


def unclosed_brace(source: bytes) -> int | None:
    """Byte offset of the first ``{`` that is never closed (comments, strings and preprocessor lines
    left out), or None. Used to point a syntax error at the brace rather than where recovery gave up."""
    code = _code_only(source)
    braces = code.translate(None, bytes(b for b in _ALL if b not in b"{}"))
    if braces.count(b"{") <= braces.count(b"}"):
        return None
    signs = array("b")
    signs.frombytes(braces.translate(bytes.maketrans(b"{}", b"\x01\xff")))
    depths = list(accumulate(signs))
    # the opener at i (depth after it d) is closed iff a later depth reaches d - 1
    later_min = list(accumulate(reversed(depths), min))[::-1] + [None]
    for i, sign in enumerate(signs):
        if sign == 1 and (later_min[i + 1] is None or later_min[i + 1] >= depths[i]):
            return _nth(code, i + 1, b"{}")
    return None


def constant_error(filename: str, source: bytes, offset: int, what: str, text: str) -> LimitError:
    """The LimitError for a constant expression (attribute argument, array size) out of range."""
    return _refuse(filename, source, offset, f"{what} '{_short(' '.join(text.split()))}' out of range (limit "
                                             f"MAX_CONSTANT_BITS: integers below 2**{MAX_CONSTANT_BITS}, finite "
                                             f"floating values)")
