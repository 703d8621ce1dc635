"""Every shipped example parses clean; mutated and truncated kernels never crash the front end."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgraph.parsers import KGraphError, lang_from_path, parse_file, parse_source

EX = Path(__file__).resolve().parent.parent / "examples"
GOOD = sorted(p for p in EX.rglob("*") if p.is_file() and p.parent.name != "bad" and lang_from_path(p))


def test_example_set_is_varied():
    assert len(GOOD) >= 20
    assert {lang_from_path(p) for p in GOOD} == {"opencl", "cuda", "c"}
    for required in ("opencl/sgemm_naive.cl", "opencl/saxpy.cl", "opencl/sgemm_tiled.cl", "cuda/reduce_shared.cu"):
        assert (EX / required).is_file()


@pytest.mark.parametrize("path", GOOD, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_parses_clean(path):
    unit = parse_file(path)
    assert unit.diagnostics == []
    assert not unit.tree.root_node.has_error
    assert unit.kernels, "every example has at least one kernel"
    for fn in unit.functions:
        assert fn.body.type == "compound_statement"
        for p in fn.params:
            assert p.name and p.kind in ("buffer", "scalar")
            assert p.address_space in ("global", "local", "constant", "private")


SEEDS = [(p.read_text(), lang_from_path(p)) for p in GOOD]
_ALPHABET = st.sampled_from(list("{}()[];,*=+-<>#/\"'\\\n \t_0aZ") + ["__kernel", "__global", "local ", "#define ",
                                                                    "#pragma unroll", "/*", "\x00", "\ufeff", "é"])


@st.composite
def mutated(draw):
    text, lang = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "truncate"]))
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = min(len(text), i + draw(st.integers(1, 40)))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(_ALPHABET) + text[i:]
        else:
            text = text[:i]
    return text, lang


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(mutated())
def test_fuzz_never_crashes(case):
    text, lang = case
    try:
        unit = parse_source(text, lang, filename="fuzz")
    except KGraphError:
        return
    for d in unit.diagnostics:
        assert d.line >= 1 and d.col >= 1 and d.severity in ("error", "warning", "note")
    assert len(unit.source) == len(text.encode("utf-8"))
    for fn in unit.functions:
        _ = [p.address_space for p in fn.params]
