"""Fuzzing of the front end and the constant evaluator with hostile input (guard and property:
:mod:`tests.fuzz_guard`).

* **front end**: shipped example kernels (OpenCL, CUDA, C) with hostile fragments spliced in, spans
  deleted or repeated, truncated, byte noise, hostile ``-D`` macros, through ``kgraph.from_source`` (parse,
  kernel graphs, static analysis) and ``parse_source``;
* **constant evaluator**: free-form token soup and macro tables through ``fold_checked``.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kgraph
from tests.fuzz_guard import (  # noqa: F401 - base, _report_and_originals: the module fixtures
    COUNTS, ROOT, _report_and_originals, _settings, base, count_input, guarded, sandbox)

EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*")
                  if p.is_file() and p.suffix in (".cl", ".cu", ".c") and p.parent.name != "bad")
LANG = {".cl": "opencl", ".cu": "cuda", ".c": "c"}


# ------------------------------------------------------------------------------------------------
# 1. the front end
# ------------------------------------------------------------------------------------------------
_SOURCES = [(p.read_text(), LANG[p.suffix]) for p in EXAMPLES]
_FRAGMENTS = [
    "{" * 300, "(" * 300, "[" * 300, "}" * 50, ")", "x[i << 99999999999]", "1<<40000000000", "1e999", "1e-999",
    "0x1p+99999", "99999999999999999999999999", "0xffffffffffffffffff", "-9223372036854775808",
    "__attribute__((reqd_work_group_size(1e999,1,1)))", "__attribute__((reqd_work_group_size(1<<40,1,1)))",
    "__attribute__((reqd_work_group_size(0,-1,1)))", "float big[1<<2000000000];", "float neg[-5];",
    "float z[0];", "#define N (1<<63)\n", "#define M M\n", "#define F(a) F(a)\n", "#pragma unroll 99999999999\n",
    "#pragma unroll -1\n", "#if 1<<99999\n#endif\n", "#if\n", "#endif\n", "#else\n", "#include \"/etc/passwd\"\n",
    "/*", "*/", "//", "\"", "'", "\\\n", "\x00", "\ufffd", "\u202e", "@", "`", "$", "#", "??=", "__kernel",
    "__global", "__local float s[1<<30];", "for(;;);", "for(int j=0;j<1<<62;j++)x[j]=0;", "while(1){}",
    "do{}while(0)", "goto l; l:", "switch(i){case 1<<70: break;}", "return;", "x[i] = x[i] / 0;",
    "x[i] = 1 % 0;", "int a = 1 >> -1;", "x[(int)1e300] = 0;", "sizeof(float[1<<62])", "get_global_id(99)",
    "get_local_size(-1)", "barrier(CLK_LOCAL_MEM_FENCE);", "__syncthreads();", "atomicAdd(x, 1);",
    "if(a)" * 40, "- " * 200, "1+" * 300 + "1", "x[x[x[x[x[x[0]]]]]]", "int i = get_global_id(0);",
    "\n" * 50, ";" * 200,
]
_DEFINES = {"N": ["16", "1<<62", "1<<64", "1e999", "", "(", "N", "-1", "0", "99999999999999999999999"],
            "TILE": ["16", "0", "-16", "1<<40000000000", "x"], "M": ["1", "M", ")"]}


@st.composite
def kernel_sources(draw):
    text, lang = draw(st.sampled_from(_SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        op = draw(st.sampled_from(["splice", "splice", "delete", "repeat", "truncate", "noise", "replace_number"]))
        if op == "splice":
            text = text[:i] + draw(st.sampled_from(_FRAGMENTS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 200)):]
        elif op == "repeat":
            span = text[i:i + draw(st.integers(1, 200))]
            text = text[:i] + span * draw(st.integers(2, 50)) + text[i:]
        elif op == "truncate":
            text = text[:i]
        elif op == "noise":
            text = text[:i] + draw(st.text(min_size=1, max_size=20)) + text[i:]
        else:
            digits = [j for j, c in enumerate(text) if c.isdigit()]
            if digits:
                j = draw(st.sampled_from(digits))
                text = text[:j] + draw(st.sampled_from(["99999999999999999999999", "1e999", "0", "-1", "1<<99"])) \
                    + text[j + 1:]
    lang = draw(st.sampled_from([lang, lang, lang, "opencl", "cuda", "c"]))
    defines = draw(st.none() | st.dictionaries(st.sampled_from(sorted(_DEFINES)),
                                               st.sampled_from(sum(_DEFINES.values(), [])), max_size=2))
    return text, lang, defines


def _check_frontend(base: Path, text: str, lang: str, defines):
    from kgraph.parsers import parse_source

    count_input("frontend")
    with sandbox(base) as box, guarded("frontend", [box]):
        graphs = kgraph.from_source(text, lang, filename="fuzz" + {"opencl": ".cl", "cuda": ".cu", "c": ".c"}[lang],
                                    defines=defines)
        assert isinstance(graphs, list)
    with sandbox(base) as box, guarded("frontend", [box]):
        parse_source(text, lang=lang)



@given(kernel_sources())
@_settings(COUNTS["frontend"][0])
def test_fuzz_frontend(base, case):
    _check_frontend(base, *case)


@pytest.mark.slow
@given(kernel_sources())
@_settings(COUNTS["frontend"][1])
def test_fuzz_frontend_slow(base, case):
    _check_frontend(base, *case)


# ------------------------------------------------------------------------------------------------
# 2. the constant evaluator
# ------------------------------------------------------------------------------------------------
_TOKENS = ["0", "1", "2", "63", "64", "65", "-1", "0x7fffffffffffffff", "0xffffffffffffffff", "0x10000000000000000",
           "18446744073709551615u", "9223372036854775808", "1e308", "1e309", "1e999", "1e-999", "0x1p1023", "0x1p1024",
           "1.5f", ".5", "1.", "0777", "0b101", "08", "1ul", "1ULL", "'a'", "'\\0'", "\"s\"", "+", "-", "*", "/", "%",
           "<<", ">>", "&", "|", "^", "~", "!", "&&", "||", "==", "!=", "<", ">", "<=", ">=", "?", ":", ",", "(", ")",
           "sizeof", "(int)", "(float)", "(unsigned long)", "(char)", "float", "int", "A", "B", "F", "SELF", "LOOP",
           "BIG", "undefined_name", "#", "##", "defined", "[", "]", "."]
_MACRO_BODIES = ["16", "(1 << 62) * 4", "A * A", "B + 1", "SELF", "LOOP + LOOP", "1e999", "(", "", "a + a",
                 "F(F(a))", "0x1p1024", "1 << 64", "-9223372036854775807 - 1", "A ## B", "#a"]


@st.composite
def const_cases(draw):
    from kgraph.parsers.unit import Macro

    tokens = draw(st.lists(st.sampled_from(_TOKENS), min_size=0, max_size=40))
    if draw(st.booleans()):  # balance the parentheses sometimes, so more inputs reach the evaluator
        tokens = ["("] + tokens + [")"] * (1 + tokens.count("(") - tokens.count(")"))
    macros = {}
    for name in draw(st.lists(st.sampled_from(["A", "B", "F", "SELF", "LOOP", "BIG"]), max_size=4, unique=True)):
        params = ("a",) if name == "F" else None
        macros[name] = Macro(name, params, draw(st.sampled_from(_MACRO_BODIES)))
    sizes = draw(st.sampled_from([None, 4, 0, -1, 2**70]))
    return " ".join(tokens), macros, sizes


def _check_const(base: Path, text: str, macros, size):
    from kgraph.parsers.constexpr import fold, fold_checked
    from kgraph.parsers.limits import MAX_CONSTANT_BITS

    count_input("constexpr")
    with guarded("constexpr", []):  # no file access at all
        value, why = fold_checked(text, macros, lambda _: size)
        assert (value is None) == (why is not None) and why in (None, "range", "no fold")
        if isinstance(value, int) and not isinstance(value, bool):
            assert abs(value) < 2 ** MAX_CONSTANT_BITS
        elif value is not None:
            assert isinstance(value, float) and math.isfinite(value)
        assert fold(text, macros, lambda _: size) == value or (value != value)


@given(const_cases())
@_settings(COUNTS["constexpr"][0])
def test_fuzz_constexpr(base, case):
    _check_const(base, *case)


@pytest.mark.slow
@given(const_cases())
@_settings(COUNTS["constexpr"][1])
def test_fuzz_constexpr_slow(base, case):
    _check_const(base, *case)
