"""C's cast/expression ambiguity (parsers/casts.py): ``(gi * (K)) + q`` is the product plus ``q`` where ``gi``
is a variable, and stays a cast where it names a type; line:column and the analysis follow."""
from __future__ import annotations

import pytest

from kgraph.analysis import analyze
from kgraph.parsers import parse_source

KERNEL = """{typedef}__kernel void t(const int K, const int J, __global const float* a0, __global float* out0) {{
    const int gi = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {{
        const int q = k;
        acc += a0[{index}];
    }}
    out0[gi] = acc;
}}"""


def _a0_index(index: str, typedef: str = "") -> str:
    unit = parse_source(KERNEL.format(index=index, typedef=typedef), "opencl")
    assert not unit.errors and unit.function("t").is_kernel
    analysis = analyze(unit.function("t"), unit)
    return str(next(a.index_expr for a in analysis.accesses if a.buffer == "a0"))


@pytest.mark.parametrize("index, want", [
    ("(gi * (K * J)) + q", "J*K*gid0 + k_L4"),   # read as a cast of +q before: the work-item term was lost
    ("(gi * (K)) + q", "K*gid0 + k_L4"),
    ("(gi * (K)) - q", "K*gid0 - k_L4"),
    ("((gi * (K)) + q)", "K*gid0 + k_L4"),
    ("gi * (K * J) + q", "J*K*gid0 + k_L4"),     # never ambiguous: unchanged
    ("(gi * (K + J)) + q", "gid0*(J + K) + k_L4"),
    ("(int)(gi) + q", "gid0 + k_L4"),            # a real cast stays one
])
def test_products_read_as_casts_are_products(index, want):
    assert _a0_index(index).replace(" ", "") == want.replace(" ", "")


def test_a_type_name_keeps_the_cast_and_positions_stay_exact():
    src = KERNEL.format(index="q + (int)((T *(K)) + 1)", typedef="typedef int T;\n")
    unit = parse_source(src, "opencl")
    assert len(unit.source) == len(src.encode())
    cast = [n for n in _walk(unit.tree.root_node) if n.type == "cast_expression"]
    assert any(b"T *(K)" in n.text for n in cast)  # T is a typedef: `(T *(K)) + 1` stays a cast
    # the blanked parentheses keep every byte offset: an error after them is reported at its column
    bad = parse_source(KERNEL.format(index="(gi * (K)) + q", typedef="").replace("out0[gi] = acc;", "out0[gi] = acc $;"),
                       "opencl")
    line = KERNEL.format(index="", typedef="").splitlines().index("    out0[gi] = acc;") + 1
    assert [(d.line, d.col) for d in bad.errors][:1] == [(line, 20)]


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
