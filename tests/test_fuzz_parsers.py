"""Property-based fuzzing of the front end and the constant evaluator with hostile input (hardening issue).

* The parser (``parse_source`` and then the kernel graphs with their static analysis) gets sources
  built from hostile fragments: bracket runs past the nesting limit, operator and ``if`` chains, huge and
  malformed literals, shifts by huge counts, attributes, array sizes, ``#define``/``#if``/``#pragma``
  with such constants, stray bytes, unterminated comments and strings. Property: a unit or a
  ``KGraphError`` (``LimitError`` included), never another exception, well-formed diagnostics, each input
  within the deadline.
* The constant evaluator (``fold_checked``) gets random C expression trees (every operator, casts,
  ``sizeof``, ``?:``, macros, literals around 2**63 / 2**64 and 1e308 / 1e999), rendered fully
  parenthesised. Property: exactly what an independent reference evaluator of the tree says (the value,
  ``"range"`` past ``MAX_CONSTANT_BITS``, or ``"no fold"``), integers always within range.

The default suite runs a few hundred inputs (``derandomize=True``: the same ones every run); the slow
suite (``-m slow``) runs 12,000. Counts and times are in BENCHMARKS.md ("Hostile inputs").
"""
from __future__ import annotations

import math
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgraph
from kgraph.parsers import KGraphError, get_dialect, parse_source
from kgraph.parsers.constexpr import fold_checked
from kgraph.parsers.limits import MAX_CONSTANT_BITS
from kgraph.parsers.unit import Macro

BOUND = 1 << MAX_CONSTANT_BITS
HEAD = "__kernel void k(__global float *x, int n) {\n  int i = get_global_id(0);\n"
DEADLINE = timedelta(seconds=10)  # per input: far above the worst seen (< 1 s); a hang or a blow-up fails


def _settings(n: int):
    return settings(max_examples=n, deadline=DEADLINE, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------------------------------------
# constant expressions: a tree, its C text, and an independent reference value
# ------------------------------------------------------------------------------------------------
_EDGE_INTS = [0, 1, 2, 7, 63, 64, 65, 255, (1 << 31) - 1, 1 << 31, (1 << 32), (1 << 62), (1 << 63) - 1, 1 << 63,
              BOUND - 1, BOUND, BOUND + 1, 1 << 70, 10 ** 30]
_FLOATS = ["0.5", "1.5f", "2.0", "1e308", "1.7976931348623157e308", "1e309", "1e999", "1e-400", "0x1p+1023",
           "0x1p+1024", ".25", "3.0e+2f"]
_MACROS = {  # object-like, parenthesised bodies: textual expansion gives the body's value
    "TILE": "(16)", "BIG": "((1 << 62) * 2)", "HUGE": "(1 << 63) * 2", "HALF": "(0.5f)",
    "LOOP": "(LOOP + 1)", "UNDEF_USE": "(NOPE * 2)", "SQ": None,
}
_SIZEOF = {"float": 4, "int": 4, "double": 8, "char": 1}


class Range(Exception):
    pass


class NoFold(Exception):
    pass


def _check(v):
    if isinstance(v, int):
        if not -BOUND < v < BOUND:
            raise Range
        return v
    if math.isinf(v) or math.isnan(v):
        raise Range
    return v


def _int_literal(draw) -> tuple[str, int]:
    v = draw(st.one_of(st.sampled_from(_EDGE_INTS), st.integers(0, 1 << 72)))
    form = draw(st.sampled_from(["dec", "hex", "oct", "bin"]))
    suffix = draw(st.sampled_from(["", "u", "U", "l", "ul", "ULL"]))
    text = {"dec": str(v), "hex": hex(v), "oct": "0" + oct(v)[2:] if v else "0", "bin": bin(v)}[form]
    return text + suffix, v


@st.composite
def expr_tree(draw, depth: int = 0):
    """A tree: ("lit", text, value) | ("id", name) | ("sizeof", type) | ("un", op, t) | ("cast", type, t)
    | ("bin", op, l, r) | ("cond", c, a, b)."""
    leaf = depth >= 5 or draw(st.integers(0, 9)) < 3
    if leaf:
        kind = draw(st.sampled_from(["int", "int", "int", "float", "id", "sizeof"]))
        if kind == "int":
            text, v = _int_literal(draw)
            return ("lit", text, v)
        if kind == "float":
            text = draw(st.sampled_from(_FLOATS))
            return ("flit", text)
        if kind == "id":
            return ("id", draw(st.sampled_from(sorted(_MACROS) + ["n", "nope"])))
        return ("sizeof", draw(st.sampled_from(sorted(_SIZEOF))))
    kind = draw(st.sampled_from(["un", "cast", "bin", "bin", "bin", "cond"]))
    if kind == "un":
        return ("un", draw(st.sampled_from(["-", "+", "~", "!"])), draw(expr_tree(depth + 1)))
    if kind == "cast":
        return ("cast", draw(st.sampled_from(["int", "float", "double", "unsigned int"])), draw(expr_tree(depth + 1)))
    if kind == "bin":
        op = draw(st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==",
                                   "!=", "&&", "||"]))
        return ("bin", op, draw(expr_tree(depth + 1)), draw(expr_tree(depth + 1)))
    return ("cond", draw(expr_tree(depth + 1)), draw(expr_tree(depth + 1)), draw(expr_tree(depth + 1)))


def render(t) -> str:
    k = t[0]
    if k in ("lit", "flit"):
        return t[1]
    if k == "id":
        return t[1]
    if k == "sizeof":
        return f"sizeof({t[1]})"
    if k == "un":
        return f"{t[1]}({render(t[2])})"
    if k == "cast":
        return f"({t[1]})({render(t[2])})"
    if k == "bin":
        return f"({render(t[2])}) {t[1]} ({render(t[3])})"
    return f"({render(t[1])}) ? ({render(t[2])}) : ({render(t[3])})"


def _float_literal(text: str) -> float:
    body = text.rstrip("fF")
    v = float.fromhex(body) if body.lower().startswith("0x") else float(body)
    return _check(v)


def _ref_macro(name: str):
    body = _MACROS.get(name, "missing")
    if name in ("LOOP", "UNDEF_USE", "n", "nope") or body in (None, "missing"):
        raise NoFold  # self-reference stops, an undefined name does not fold, SQ is function-like
    return {"TILE": lambda: 16, "BIG": lambda: _check(_check(1 << 62) * 2),
            "HUGE": lambda: _check(_check(1 << 63) * 2), "HALF": lambda: 0.5}[name]()


def reference(t):
    """The value of tree ``t`` with the folder's rules, evaluated in the same order (left to right)."""
    k = t[0]
    if k == "lit":
        return _check(t[2])
    if k == "flit":
        try:
            return _float_literal(t[1])
        except OverflowError:
            raise Range from None
    if k == "id":
        return _ref_macro(t[1])
    if k == "sizeof":
        return _SIZEOF[t[1]]
    if k == "un":
        v = reference(t[2])
        if t[1] == "~":
            if not isinstance(v, int):
                raise NoFold
            return _check(~v)
        return _check({"+": v, "-": -v, "!": int(not v)}[t[1]])
    if k == "cast":
        if t[1] not in _SIZEOF:
            raise NoFold  # not a type the size table knows: "(unsigned int)" is read as a parenthesised name
        v = reference(t[2])
        return _check(float(v) if t[1] in ("float", "double") else int(v))
    if k == "cond":
        c, a, b = reference(t[1]), reference(t[2]), reference(t[3])
        return a if c else b
    op, a = t[1], reference(t[2])
    b = reference(t[3])
    if op in ("/", "%"):
        if b == 0:
            raise NoFold
        if isinstance(a, int) and isinstance(b, int):
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return _check(q if op == "/" else a - b * q)
        if op == "%":
            raise NoFold
        return _check(a / b)
    if op in ("<<", ">>", "&", "|", "^"):
        if not (isinstance(a, int) and isinstance(b, int)):
            raise NoFold
        if op in ("<<", ">>") and not 0 <= b < MAX_CONSTANT_BITS:
            raise Range
    return _check({
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "<<": lambda: a << b, ">>": lambda: a >> b,
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
        "!=": lambda: int(a != b), "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }[op]())


def expected(t):
    try:
        return reference(t), None
    except Range:
        return None, "range"
    except NoFold:
        return None, "no fold"


_MACRO_TABLE = {name: Macro(name, ("a",) if body is None else None, body if body is not None else "((a) * (a))")
                for name, body in _MACROS.items()}


def _sizeof(spelling: str):
    return _SIZEOF.get(spelling)


def check_fold(t) -> None:
    text = render(t)
    value, why = fold_checked(text, _MACRO_TABLE, _sizeof)
    want = expected(t)
    assert (value, why) == want or (isinstance(value, float) and isinstance(want[0], float)
                                    and math.isclose(value, want[0], rel_tol=0, abs_tol=0)), (text, (value, why), want)
    assert type(value) is type(want[0])
    if isinstance(value, int):
        assert -BOUND < value < BOUND


@_settings(300)
@given(expr_tree())
def test_fuzz_fold_matches_the_reference(t):
    check_fold(t)


@pytest.mark.slow
@_settings(8_000)
@given(expr_tree())
def test_fuzz_fold_matches_the_reference_slow(t):
    check_fold(t)


# ------------------------------------------------------------------------------------------------
# the parser: sources made of hostile fragments
# ------------------------------------------------------------------------------------------------
@st.composite
def c_constant(draw) -> str:
    """Constant text for attributes, array sizes, macros, shifts: small, huge, malformed."""
    return draw(st.one_of(
        st.builds(render, expr_tree()),
        st.sampled_from(["16", "1e999", "1<<40000000000", "1<<2000000000", "99999999999", "0x" + "f" * 40,
                         "18446744073709551616", "-1", "1e-999", "0.5", "TILE*TILE", "(", ")", "'a'", "\"s\"",
                         "9" * 300, "1" + "0" * 25 + "e+9999"]),
    ))


@st.composite
def fragment(draw) -> str:
    c = draw(c_constant())
    n = draw(st.integers(1, 1400))
    return draw(st.sampled_from([
        "{" * min(n, 600), "(" * min(n, 600), "[" * min(n, 300), "}" * (n % 50), ")" * (n % 50),
        "x[0] = " + "+".join(["1"] * n) + ";", "x[0] = " + "-" * n + "1;", "if (x[0]) " * min(n, 1200) + "x[0] = 1;",
        "x[i] = x[0] ? " + "x[1] ? " * min(n, 600) + "1" + " : 2" * min(n, 600) + " : 3;",
        f"x[i << {c}] = 1.0f;", f"x[i >> ({c})] = 1.0f;", f"x[{c}] = {c};", f"float a[{c}]; x[0] = a[0];",
        f"for (int j = 1; j < n; j <<= {c}) x[j] = 1;", f"for (int j = 0; j < {c}; j += {c}) x[j] = 2;",
        f"#define M {c}\nx[M] = M;\n", f"#define F(a) ((a) << {c})\nx[F(i)] = 1;\n", f"#if {c}\nx[1] = 1;\n#endif\n",
        f"#pragma unroll {c}\nfor (int j = 0; j < 4; j++) x[j] = 0;\n",
        "__attribute__((reqd_work_group_size(" + c + ", 1, 1)))", "x[0] = max(" + "x[0], " * min(n, 1000) + "x[1]);",
        "x[0] = 1;" * min(n, 800), "/* unterminated", "\" unterminated", "// {{{ (((\n", "@", "\ufeff", "é", "\\\n",
        "#define LOOP LOOP\nx[LOOP] = 1;\n", "#define M0 1\n" + "".join(f"#define M{j} (M{j - 1}+M{j - 1})\n"
                                                                      for j in range(1, 30)) + "x[M29] = 1;\n",
    ]))


@st.composite
def hostile_source(draw) -> tuple[str, str]:
    lang = draw(st.sampled_from(["opencl", "opencl", "cuda", "c"]))
    head = HEAD if lang == "opencl" else HEAD.replace("__kernel", "__global__" if lang == "cuda" else "")
    head = head.replace("__global float", "float") if lang != "opencl" else head
    parts = [draw(fragment()) for _ in range(draw(st.integers(1, 4)))]
    tail = draw(st.sampled_from(["}\n", "", "}}\n", "}\n" + head + "x[0]=1;}\n"]))
    prefix = draw(st.sampled_from(["", head.replace(" k(", " attr(").replace("{", "") + ";\n", "#define TILE 16\n"]))
    attr = draw(st.booleans())
    if attr and lang == "opencl":
        head = head.replace("__kernel", f"__kernel __attribute__((reqd_work_group_size({draw(c_constant())},1,1)))")
    return prefix + head + "\n".join(parts) + tail, lang


def check_parse(case, analyze: bool) -> None:
    text, lang = case
    try:
        unit = parse_source(text, lang, filename="fuzz.cl")
    except KGraphError as exc:
        assert str(exc)  # a message, on one line per diagnostic
        for d in getattr(exc, "diagnostics", []):
            assert d.line >= 1 and d.col >= 1 and d.file == "fuzz.cl"
        return
    for d in unit.diagnostics:
        assert d.line >= 1 and d.col >= 1 and d.severity in ("error", "warning", "note")
    for fn in unit.functions:
        for value in fn.attributes.get("reqd_work_group_size", ()):
            assert not isinstance(value, int) or -BOUND < value < BOUND
    for m in unit.macros.values():
        assert m.value is None or not isinstance(m.value, int) or -BOUND < m.value < BOUND
    graphs = kgraph.from_unit(unit, analyze=analyze)  # analysis failures are recorded, never raised
    for g in graphs:
        g.summary()


@_settings(150)
@given(hostile_source())
def test_fuzz_parser_hostile_sources(case):
    check_parse(case, analyze=False)


@_settings(40)
@given(hostile_source())
def test_fuzz_parser_hostile_sources_with_analysis(case):
    check_parse(case, analyze=True)


@pytest.mark.slow
@_settings(3_000)
@given(hostile_source())
def test_fuzz_parser_hostile_sources_slow(case):
    check_parse(case, analyze=False)


@pytest.mark.slow
@_settings(1_000)
@given(hostile_source())
def test_fuzz_parser_hostile_sources_with_analysis_slow(case):
    check_parse(case, analyze=True)


def test_reference_agrees_on_known_cases():
    """The reference evaluator itself, on hand-checked cases."""
    cases = {"(7) / (-(2))": (-3, None), "(1) << (64)": (None, "range"), "((1) << (63)) * (2)": (None, "range"),
             "(1e999)": (None, "range"), "(5.5) % (2)": (None, "no fold"), "(BIG)": (1 << 63, None), "(HUGE)": (None, "range"),
             "(TILE) * (TILE)": (256, None), "(LOOP)": (None, "no fold"), "sizeof(double)": (8, None)}
    for text, want in cases.items():
        assert fold_checked(text, _MACRO_TABLE, _sizeof) == want, text
    get_dialect("opencl")
