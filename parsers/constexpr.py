"""Fold C constant expressions (macro bodies, array sizes, loop bounds) to an int or float.

Identifiers resolve through object-like and function-like macros, recursively (a macro is never
expanded inside itself). Supports integer/float literals with C suffixes, ``sizeof(type)`` through a
size table, casts to arithmetic types, unary ``+ - ~ !``, the binary operators of C with their
precedence, and ``?:``. Integer ``/`` and ``%`` truncate toward zero as in C. Anything else (an unknown
identifier, a call, an assignment) does not fold: :func:`fold` returns ``None``.

Values stay within :data:`~kgraph.parsers.limits.MAX_CONSTANT_BITS`: a literal, or any intermediate
result, whose integer magnitude reaches ``2**64`` (or a float that is not finite, or a shift count
outside ``0..63``) stops the fold (:class:`ConstantRange`; :func:`fold` returns ``None``,
:func:`fold_checked` says why), so folding never builds a huge number. Macro expansion is bounded too:
at most ``_MAX_EXPANSIONS`` macro uses and ``_MAX_TOKENS`` tokens per expression.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Mapping

from kgraph.parsers.limits import MAX_CONSTANT_BITS
from kgraph.parsers.tokens import Token, tokenize

_BINARY = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
    "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uUlL]*$")
_MAX_EXPANSIONS = 2000
_MAX_TOKENS = 20_000
_BOUND = 1 << MAX_CONSTANT_BITS
# digits a literal may have before its value is computed (more, leading zeros left out, is out of range)
_MAX_DIGITS = {16: MAX_CONSTANT_BITS // 4, 2: MAX_CONSTANT_BITS, 8: (MAX_CONSTANT_BITS + 2) // 3,
               10: len(str(1 << MAX_CONSTANT_BITS))}


class _NoFold(Exception):
    pass


class ConstantRange(_NoFold):
    """A literal or folded value outside the range of :data:`~kgraph.parsers.limits.MAX_CONSTANT_BITS`."""


def _checked(value):
    """``value`` if it is in range, else ConstantRange."""
    if isinstance(value, int):
        if -_BOUND < value < _BOUND:
            return value
        raise ConstantRange("integer constant needs more than %d bits" % MAX_CONSTANT_BITS)
    if value != value or value in (float("inf"), float("-inf")):
        raise ConstantRange("floating constant is not finite")
    return value


def _int_digits(digits: str, base: int) -> int:
    if len(digits.lstrip("0")) > _MAX_DIGITS[base]:
        raise ConstantRange("integer literal needs more than %d bits" % MAX_CONSTANT_BITS)
    return _checked(int(digits, base) if digits else 0)


def literal_fits(text: str) -> bool:
    """Whether a C number literal fits (:data:`~kgraph.parsers.limits.MAX_CONSTANT_BITS`); text that is
    no number literal the folder reads counts as fitting (the grammar decides what it is)."""
    try:
        _literal(text)
    except ConstantRange:
        return False
    except (_NoFold, ValueError, OverflowError):
        return True
    return True


def _literal(text: str) -> int | float:
    m = _INT.match(text)
    if m:
        digits = m.group(1)
        if digits[:2] in ("0x", "0X"):
            return _int_digits(digits[2:], 16)
        if digits[:2] in ("0b", "0B"):
            return _int_digits(digits[2:], 2)
        return _int_digits(digits, 8) if len(digits) > 1 and digits[0] == "0" else _int_digits(digits, 10)
    body = text.rstrip("fFlL") if not text.lower().startswith("0x") else text
    if len(body) > 4000:  # a float literal this long is no constant a kernel means
        raise ConstantRange("floating literal of %d characters" % len(body))
    try:
        value = float(body) if not body.lower().startswith("0x") else float.fromhex(body.rstrip("fFlL"))
    except OverflowError:
        raise ConstantRange("floating literal out of range") from None
    except ValueError:
        raise _NoFold(text) from None
    return _checked(value)


def _c_div(a, b, op):
    if b == 0:
        raise _NoFold("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - b * q
    if op == "%":
        raise _NoFold("% on floats")
    return a / b


def _apply(op: str, a, b):
    return _checked(_apply_unchecked(op, a, b))


def _apply_unchecked(op: str, a, b):
    if op in ("/", "%"):
        return _c_div(a, b, op)
    if op in ("<<", ">>", "&", "|", "^") and not (isinstance(a, int) and isinstance(b, int)):
        raise _NoFold(op)
    if op in ("<<", ">>") and not 0 <= b < MAX_CONSTANT_BITS:
        raise ConstantRange(f"shift count {b} outside 0..{MAX_CONSTANT_BITS - 1}")
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "<<": lambda: a << b, ">>": lambda: a >> b,
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b), "<=": lambda: int(a <= b),
        ">": lambda: int(a > b), ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }[op]()


class _Parser:
    def __init__(self, toks: list[str], sizeof: Callable[[str], int | None]):
        self.toks, self.i, self.sizeof = toks, 0, sizeof

    def peek(self, k: int = 0) -> str | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise _NoFold(f"expected {want}")
        self.i += 1
        return tok

    def type_name_end(self) -> int | None:
        """If a parenthesised type name starts at ``(``, the index of its ``)``."""
        j, words = self.i + 1, []
        while j < len(self.toks) and self.toks[j] != ")":
            word = self.toks[j]
            if not (word == "*" or word[0].isalpha() or word[0] == "_"):
                return None  # a type name is words and stars: stop at the first other token
            words.append(word)
            j += 1
        if words and j < len(self.toks) and self.sizeof(" ".join(w for w in words if w != "const")) is not None:
            return j
        return None

    def expr(self, min_prec: int = 0):
        left = self.unary()
        while True:
            op = self.peek()
            if op == "?" and min_prec == 0:
                self.take()
                a = self.expr()
                self.take(":")
                b = self.expr()
                left = a if left else b
                continue
            prec = _BINARY.get(op or "")
            if prec is None or prec < min_prec:
                return left
            self.take()
            left = _apply(op, left, self.expr(prec + 1))

    def unary(self):
        tok = self.take()
        if tok in ("+", "-", "~", "!"):
            v = self.unary()
            if tok == "~":
                if not isinstance(v, int):
                    raise _NoFold("~ on float")
                return _checked(~v)
            return _checked({"+": v, "-": -v, "!": int(not v)}[tok])
        if tok == "sizeof":
            self.take("(")
            words = []
            while self.peek() not in (")", None):
                words.append(self.take())
            self.take(")")
            size = self.sizeof(" ".join(w for w in words if w != "const"))
            if size is None:
                raise _NoFold("sizeof")
            return size
        if tok == "(":
            self.i -= 1
            end = self.type_name_end()
            if end is not None:
                words = " ".join(w for w in self.toks[self.i + 1:end] if w != "const")
                self.i = end + 1
                v = self.unary()
                return v if self.sizeof(words) is None else _checked(float(v) if words in ("float", "double", "half") else int(v))
            self.take("(")
            v = self.expr()
            self.take(")")
            return v
        if tok[0].isdigit() or tok[0] == ".":
            return _literal(tok)
        raise _NoFold(tok)


def _body_tokens(macro) -> list[Token]:
    """The tokens of a macro's body (tokenised once per body text)."""
    return _tokens_of(macro.body)


@lru_cache(maxsize=4096)
def _tokens_of(body: str) -> list[Token]:
    return tokenize(body.encode())


def expand(tokens: list[Token], macros: Mapping[str, object], hidden: frozenset[str] = frozenset(),
           budget: list[int] | None = None) -> list[str]:
    """Token texts of ``tokens`` with every macro use replaced by its (recursively expanded) body.

    ``budget`` (shared by the recursion): [macro uses left, tokens left]; running out stops the fold.
    """
    budget = [_MAX_EXPANSIONS, _MAX_TOKENS] if budget is None else budget
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        macro = macros.get(tok.text) if tok.kind == "id" and tok.text not in hidden else None
        if macro is None:
            out.append(tok.text)
            budget[1] -= 1
            if budget[1] < 0:
                raise _NoFold("expansion too long")
            i += 1
            continue
        budget[0] -= 1
        if budget[0] < 0:
            raise _NoFold("expansion too deep")
        body = _body_tokens(macro)
        if len(body) > budget[1]:
            raise _NoFold("expansion too long")
        if macro.params is None:
            out.extend(expand(body, macros, hidden | {tok.text}, budget))
            i += 1
            continue
        if i + 1 >= len(tokens) or tokens[i + 1].text != "(":
            out.append(tok.text)
            i += 1
            continue
        args, depth, j, cur = [], 0, i + 2, []
        while j < len(tokens):
            t = tokens[j]
            if t.text == ")" and depth == 0:
                break
            if t.text == "," and depth == 0:
                args.append(cur)
                cur = []
            else:
                depth += {"(": 1, ")": -1}.get(t.text, 0)
                cur.append(t)
            j += 1
        if j >= len(tokens):
            raise _NoFold("unbalanced macro call")
        if cur or args:
            args.append(cur)
        if len(args) != len(macro.params):
            raise _NoFold(f"{tok.text} takes {len(macro.params)} arguments")
        binding = dict(zip(macro.params, args))
        substituted: list[Token] = []
        for b in body:
            if b.kind == "id" and b.text in binding:
                substituted.append(Token("punct", "(", 0, 0))
                substituted.extend(binding[b.text])
                substituted.append(Token("punct", ")", 0, 0))
                if len(substituted) > budget[1]:
                    raise _NoFold("expansion too long")
            else:
                substituted.append(b)
        out.extend(expand(substituted, macros, hidden | {tok.text}, budget))
        i = j + 1
    return out


def fold(text: str, macros: Mapping[str, object] = {}, sizeof: Callable[[str], int | None] = lambda _: None) -> int | float | None:
    """The value of the C constant expression ``text`` (macros resolved), or ``None`` if it does not fold."""
    value, _ = fold_checked(text, macros, sizeof)
    return value


def fold_checked(text: str, macros: Mapping[str, object] = {},
                 sizeof: Callable[[str], int | None] = lambda _: None, *,
                 work: list[int] | None = None) -> tuple[int | float | None, str | None]:
    """``(value, None)``, or ``(None, why)`` where ``why`` is ``"range"`` when a literal or an intermediate
    value leaves the range of :data:`~kgraph.parsers.limits.MAX_CONSTANT_BITS`, else ``"no fold"``.

    ``work``: a shared ``[tokens left]`` budget that this fold's macro expansion draws from (one per unit).
    """
    try:
        toks = tokenize(text.encode()) if len(text) <= 8 * _MAX_TOKENS else None
        if toks is None or len(toks) > _MAX_TOKENS:
            return None, "no fold"
        allowed = _MAX_TOKENS if work is None else min(_MAX_TOKENS, max(work[0], len(toks)))
        budget = [_MAX_EXPANSIONS, allowed]
        try:
            toks = expand(toks, macros, budget=budget)
        finally:
            if work is not None:
                work[0] -= allowed - budget[1]
        if not toks:
            return None, "no fold"
        parser = _Parser(toks, sizeof)
        value = parser.expr()
        return (value, None) if parser.peek() is None else (None, "no fold")
    except ConstantRange:
        return None, "range"
    except (_NoFold, RecursionError, OverflowError, ValueError):
        return None, "no fold"
