"""Branch shares (``taken_<line>``): a branch the analysis cannot decide weighs 1/2 unless a launch gives its share;
the kernel is then analysed at that share, in a batch as a kernel of its own (:mod:`kgraph.analysis.branches`)."""
from __future__ import annotations

from pathlib import Path

import pytest

import kgraph
from kgraph.analysis import analyze
from kgraph.analysis.branches import as_share, branch_line, describe_branches, taken_symbol
from kgraph.graphs import with_branch_fractions
from kgraph.parsers import parse_source

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
# line 5: a guard on ids (decided); line 6: an early return on data; line 8: a branch on data in a helper's caller
FILTER = """float heavy(float v) { if (v > 9.0f) { v = v * v + 1.0f; } return v * 3.0f; }
__kernel void filt(__global const float *x, __global float *y, const float t, const int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    if (x[i] < t) return;
    float v = x[i] * 2.0f;
    if (v > t) { v = heavy(v); }
    y[i] = v;
}
"""
ENV = {"t": 1.0, "n": 1024, "global_size": [1024], "local_size": [64]}


def _flops(shares=None) -> float:
    unit = parse_source(FILTER, "opencl")
    kernel = next(f for f in unit.functions if f.name == "filt")
    return analyze(kernel, unit, shares).evaluate(ENV)["flops_fp32"]


def test_undecided_branches_are_listed_and_weigh_their_share():
    graph = kgraph.from_source(FILTER, "opencl")[0]
    assert graph.analysis.branches == [1, 6, 8]  # the helper's branch is on its own line; the id guard is decided
    # per work-item: (1 - p6) * (1 multiply + p8 * (p1 * 2 + 1 multiply))
    def expected(p6, p8, p1):
        return (1 - p6) * (1 + p8 * (p1 * 2 + 1))
    assert _flops() == pytest.approx(expected(0.5, 0.5, 0.5))
    assert _flops({6: as_share(0.1), 8: as_share(1.0), 1: as_share(0.25)}) == pytest.approx(expected(0.1, 1.0, 0.25))
    assert _flops({6: as_share(1.0)}) == 0.0
    # the prior given as a share is the analysis without shares, expression for expression
    unit = parse_source(FILTER, "opencl")
    kernel = next(f for f in unit.functions if f.name == "filt")
    half = {line: as_share(0.5) for line in (1, 6, 8)}
    assert {k: str(v) for k, v in analyze(kernel, unit, half).counts.items()} == \
        {k: str(v) for k, v in analyze(kernel, unit).counts.items()}


def test_symbols_and_the_note():
    assert taken_symbol(12) == "taken_12" and branch_line("taken_12") == 12
    assert branch_line("trip_12") is None and branch_line("taken_x") is None
    analysis = kgraph.from_source(FILTER, "opencl")[0].analysis
    note = describe_branches(analysis, {"taken_6": 0.1})
    assert note.startswith("branch shares as given: taken_6 = 0.1; the branches on lines 1, 8 are assumed taken by "
                           "1/2 of executions (give the share: --arg taken_1=P)")
    assert describe_branches(None, {}) == ""


def test_a_graph_at_given_shares_is_made_once():
    graph = kgraph.from_source(FILTER, "opencl")[0]
    assert with_branch_fractions(graph, {}) is graph
    twin = with_branch_fractions(graph, {6: 0.2})
    assert twin is with_branch_fractions(graph, {6: 0.2}) and twin is not graph
    assert twin.analysis is not graph.analysis and twin.unit is graph.unit
    assert twin.analysis.evaluate(ENV)["flops_fp32"] == pytest.approx(0.8 * 2.0)


def test_estimates_follow_the_share_in_one_batch(tmp_path):
    path = tmp_path / "filt.cl"
    path.write_text(FILTER)
    model = kgraph.load_model()
    base = {"file": path, "kernel": "filt", "global": [1 << 20], "local": [256], "device": DEVICE}
    args = {"t": 0.5, "n": 1 << 20}
    shares = [{}, {"taken_6": 0.5}, {"taken_6": 0.05}, {"taken_6": 0.95}]
    batch = model.estimate_many([{**base, "args": {**args, **s}} for s in shares])
    alone = [model.estimate_many([{**base, "args": {**args, **s}}])[0] for s in shares]
    # each launch is predicted at its own share, as it is alone
    assert [r["time_ns"] for r in batch] == pytest.approx([r["time_ns"] for r in alone], rel=1e-5)
    # the prior given is the prior (a share is no scalar argument of the model)
    assert batch[0]["time_ns"] == pytest.approx(batch[1]["time_ns"], rel=1e-6)
    # fewer early returns, more work
    assert batch[2]["time_ns"] > batch[0]["time_ns"] > batch[3]["time_ns"]
    assert all(r["time_ns"] >= r["floor_ns"] for r in batch)
    assert "--arg taken_1=P" in batch[0]["counts_note"] and "taken_6 = 0.05" in batch[2]["counts_note"]
    assert batch[2]["args"]["taken_6"] == 0.05


@pytest.mark.parametrize("extra, message", [
    ({"taken_6": 1.5}, r"--arg taken_6=1.5: a branch's share of executions is between 0 and 1"),
    ({"taken_6": -0.1}, r"--arg taken_6=-0.1: a branch's share"),
    ({"taken_7": 0.5}, r"--arg taken_7: kernel filt has no scalar parameter of that name \(its scalars: t, n; "
                       r"its branch shares: taken_1, taken_6, taken_8\)"),
])
def test_bad_shares_are_named(tmp_path, extra, message):
    path = tmp_path / "filt.cl"
    path.write_text(FILTER)
    with pytest.raises(kgraph.UsageError, match=message):
        kgraph.load_model().estimate(path, "filt", [1024], [64], {"t": 0.5, "n": 1024, **extra}, DEVICE)


def test_cli_takes_a_share(tmp_path, capsys):
    from kgraph.app.cli.main import main

    path = tmp_path / "filt.cl"
    path.write_text(FILTER)
    common = [str(path), "--global", "65536", "--arg", "t=0.5", "--arg", "n=65536", "--device", DEVICE]
    assert main(["estimate", *common, "--arg", "taken_6=0.25"]) == 0
    assert "branch shares as given: taken_6 = 0.25" in capsys.readouterr().out
    assert main(["estimate", *common, "--arg", "taken_6=2"]) == 2
    assert "--arg taken_6=2: a branch's share of executions is between 0 and 1" in capsys.readouterr().err
