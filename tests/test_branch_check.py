"""The branch check (benchmarks/branch_specs.py): its kernels match their numpy references on PoCL, each has one
undecided branch, and the shares it states are the elements' (or, with lanes, the warps') that take it."""
from __future__ import annotations

import pytest

import kgraph
from benchmarks.branch_specs import shares, specs

SPECS = specs()


def test_three_kernels_two_layouts_one_branch_each():
    assert sorted(s.kernel_id for s in SPECS) == sorted(f"brcheck.{k}_{l}" for k in ("filter_heavy", "select_arms",
                                                                                   "count_atomic")
                                                         for l in ("random", "sorted"))
    for spec in SPECS:
        graph = next(g for g in kgraph.from_source(spec.source, "opencl") if g.name == spec.kernel_name)
        assert len(graph.analysis.branches) == 1 == len(shares(spec.kernel_name, 10))


def test_shares_of_elements_and_of_warps():
    assert shares("filter_heavy", 10) == pytest.approx([0.9])  # the return is taken where the element fails
    assert shares("select_arms", 10) == pytest.approx([0.1])
    assert shares("select_arms", 10, lanes=32) == pytest.approx([1 - 0.9 ** 32])  # any lane runs the warp's arm
    assert shares("filter_heavy", 10, lanes=32) == pytest.approx([0.9 ** 32])  # all lanes must return
    assert shares("count_atomic", 10, lanes=32) == pytest.approx([0.1])  # per lane either way


@pytest.mark.parametrize("spec", SPECS, ids=[s.kernel_id for s in SPECS])
def test_matches_reference_on_cpu_opencl(spec, cpu_queue):
    from kgraph.data.corpus.check import check_spec

    ok, max_err = check_spec(spec, *cpu_queue)
    assert ok, f"{spec.kernel_id}: max abs error {max_err}"
