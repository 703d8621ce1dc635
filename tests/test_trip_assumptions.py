"""Loops of data-dependent trip count: the bound an affine conjunct gives, the one iteration assumed, and where
the assumption is used (features) and where not (floors, exact counts, training)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy as sp

import kgraph
from kgraph.analysis.trips import ASSUMED_TRIP, trip_assumptions, trip_bounds
from kgraph.app.cli.main import main
from kgraph.data.features import feature_names, to_launch_features
from kgraph.data.static_counts import KNOWN_ASSUMED
from kgraph.data.floors import NO_FLOOR_LOG_NS

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
NEWTON = """__kernel void newton(const int n, const int max_iter, __global const float *p, __global float *r)
{
    int i = get_global_id(0);
    float x = 0.0f, step;
    int it = 0;
    do {
        float f = (x * x + p[i]) * x - 1.0f;
        step = f / (3.0f * x * x + p[i]);
        x -= step;
        it++;
    } while (fabs(step) > 1e-6f && it < max_iter);
    r[i] = x;
}
"""
ESCAPE_FOR = """__kernel void escape(__global const float *c, __global int *out, int limit)
{
    int i = get_global_id(0);
    float z = 0.0f;
    int k;
    for (k = 0; z < 4.0f && k < limit; k++)
        z = z * z + c[i];
    out[i] = k;
}
"""
COLLATZ = """#define MAX_STEPS 10000
__kernel void collatz(__global const uint *start, __global uint *steps)
{
    ulong v = start[get_global_id(0)];
    uint count = 0;
    while (v > 1 && count < MAX_STEPS) {
        if (v & 1) v = 3 * v + 1; else v >>= 1;
        count++;
    }
    steps[get_global_id(0)] = count;
}
"""
WALK = """__kernel void walk(__global const int *next, __global float *out)
{
    int i = get_global_id(0);
    float s = 0.0f;
    for (int p = next[i]; p >= 0; p = next[p])
        s += 1.0f;
    out[i] = s;
}
"""


def analysis(source: str):
    return kgraph.from_source(source, "opencl")[0].analysis


@pytest.mark.parametrize("source, symbol, upper", [
    (NEWTON, "trip_6", "Max(1, max_iter)"),  # do ... while (<data> && it < max_iter)
    (ESCAPE_FOR, "trip_6", "limit"),         # for (...; <data> && k < limit; ...)
    (COLLATZ, "trip_6", "10000"),            # while (<data> && count < MAX_STEPS)
    (WALK, "trip_5", None),                  # a pointer chase: no bound at all
])
def test_an_affine_conjunct_bounds_the_loop_and_one_iteration_is_assumed(source, symbol, upper):
    a = analysis(source)
    (loop,) = a.loops
    assert not loop.symbolic and f"trip_{loop.line}" == symbol and symbol in a.symbols
    assert (None if loop.upper is None else str(loop.upper)) == upper
    assert {k: str(v) for k, v in trip_bounds(a).items()} == ({} if upper is None else {symbol: upper})
    assert trip_assumptions(a) == {symbol: ASSUMED_TRIP}
    assert trip_assumptions(a) is trip_assumptions(a)  # made once per analysis


def test_no_bound_when_the_body_also_moves_the_loop_variable():
    src = """__kernel void skip(__global const int *d, __global int *out, int n)
    {
        int k;
        for (k = 0; k < n && d[k] != 0; k++)
            k += d[k];
        out[get_global_id(0)] = k;
    }
    """
    (loop,) = analysis(src).loops
    assert not loop.symbolic and loop.upper is None


def test_a_kernel_without_unknown_loops_assumes_nothing():
    src = "__kernel void k(__global float *x, int n) { for (int j = 0; j < n; j++) x[get_global_id(0)] += 1.0f; }"
    assert trip_assumptions(analysis(src)) == {}


def _features(source: str, name: str, args: list[dict]) -> dict[str, np.ndarray]:
    device = json.loads(Path(DEVICE).read_text())
    rows = pd.DataFrame([{"device_id": "d", "source_id": "s", "kernel_name": name, "dims": 1, "g0": 4096, "g1": 1,
                          "g2": 1, "l0": 64, "l1": 1, "l2": 1, "args": json.dumps(a)} for a in args])
    x = to_launch_features(rows, pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": source}]), {"d": device})
    return {n: x[:, i] for i, n in enumerate(feature_names())}


def test_features_take_the_assumption_and_floors_take_zero_iterations():
    f = _features(NEWTON, "newton", [{"n": 4096, "max_iter": 100}, {"n": 4096, "max_iter": 400},
                                     {"n": 4096, "max_iter": 100, "trip_6": 7}])
    assert f["static_known"].tolist() == [KNOWN_ASSUMED, KNOWN_ASSUMED, 1.0]
    flops = np.expm1(f["static_flops_fp32"].astype(np.float64))
    # the loop's fp32 FLOPs per iteration, once whatever max_iter is, and 7 times where the mean is given
    per_iteration = flops[2] / 7
    np.testing.assert_allclose(flops, [per_iteration, per_iteration, 7 * per_iteration], rtol=1e-4)
    # every FLOP is in the loop: no fp32 floor where the count is assumed (0 iterations), one where it is given
    assert (f["floor_fp32"] == NO_FLOOR_LOG_NS).tolist() == [True, True, False]


def test_the_assumed_counts_evaluate_as_sympy_does():
    a = analysis(NEWTON)
    counts = {k: sp.sympify(v) for k, v in a.counts.items()}
    by_hand = counts["flops_fp32"].subs({s: 1 for s in counts["flops_fp32"].free_symbols if s.name == "trip_6"})
    value = float(by_hand.subs({s: 100 for s in by_hand.free_symbols}))
    f = _features(NEWTON, "newton", [{"n": 4096, "max_iter": 100}])
    assert np.expm1(float(f["static_flops_fp32"][0])) == pytest.approx(value, rel=1e-4)


def test_estimate_names_the_assumption_and_keeps_the_counts_the_models(capsys, model_dir, tmp_path):
    path = tmp_path / "newton.cl"
    path.write_text(NEWTON)
    base = ["estimate", str(path), "--global", "4096", "--local", "64", "--arg", "n=4096", "--arg", "max_iter=400",
            "--device", DEVICE, "--model", str(model_dir), "--json"]
    assert main(base) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flops_source"] == "model"
    assert "the model's inputs assume trip_6 = 1 (at most Max(1, max_iter))" in out["counts_note"]
    assert main(base + ["--arg", "trip_6=7"]) == 0  # a given mean: exact counts, nothing assumed
    given = json.loads(capsys.readouterr().out)
    assert given["flops_source"] == "static" and given["counts_note"] == ""


def test_the_text_answer_says_what_the_interval_is_worth_where_counts_are_not_exact(capsys, tmp_path):
    """The shipped model's interval (it has one) gets the measured caveat exactly when the counts are not exact."""
    from kgraph.app.cli.estimate import INEXACT_INTERVAL

    path = tmp_path / "newton.cl"
    path.write_text(NEWTON)
    base = ["estimate", str(path), "--global", "4096", "--local", "64", "--arg", "n=4096", "--arg", "max_iter=400",
            "--device", DEVICE]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "  interval   " in out and INEXACT_INTERVAL in out
    assert main(base + ["--arg", "trip_6=7"]) == 0  # a given mean: exact counts
    out = capsys.readouterr().out
    assert "  interval   " in out and INEXACT_INTERVAL not in out


def test_estimate_gives_the_time_with_every_assumed_loop_at_its_bound(model_dir, tmp_path):
    import kgraph as kg

    (tmp_path / "newton.cl").write_text(NEWTON)
    (tmp_path / "walk.cl").write_text(WALK)
    m = kg.load_model(model_dir)
    launch = dict(global_size=[4096], local_size=[64], device=DEVICE)
    low = m.estimate(tmp_path / "newton.cl", "newton", args={"n": 4096, "max_iter": 400}, **launch)
    high = m.estimate(tmp_path / "newton.cl", "newton", args={"n": 4096, "max_iter": 400, "trip_6": 400}, **launch)
    assert low["time_at_bound_ns"] == pytest.approx(high["time_ns"], rel=1e-6)  # the same as giving the bound
    assert high["time_at_bound_ns"] is None  # nothing assumed
    walk = m.estimate(tmp_path / "walk.cl", "walk", **launch)
    assert walk["time_at_bound_ns"] is None and "trip_5 = 1" in walk["counts_note"]  # no bound: no upper end


SWEEP = """__kernel void sweep(const int n, __global const float *lo, __global const float *hi, __global int *cnt)
{
    const int i = get_global_id(0);
    int c = 0;
    for (int j = i + 1; j < n; j++) {
        if (lo[j] > hi[i])
            break;
        c++;
    }
    cnt[i] = c;
}
"""


def test_estimate_says_a_loop_with_a_break_is_counted_at_its_bound(capsys, model_dir, tmp_path):
    """A counted loop a `break` on data can leave (a sweep stopping at its first miss) is counted from its header:
    the record says that count is an upper bound; a kernel without such a loop says nothing of it."""
    path = tmp_path / "sweep.cl"
    path.write_text(SWEEP)
    base = ["estimate", str(path), "--global", "4096", "--local", "64", "--arg", "n=4096", "--device", DEVICE,
            "--model", str(model_dir), "--json"]
    assert main(base) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flops_source"] == "model"
    assert ("the loop on line 5 has a 'break' and is counted at its full trip count (an upper bound"
            in out["counts_note"]), out["counts_note"]
    path.write_text(NEWTON)
    assert main(["estimate", str(path), "--global", "4096", "--local", "64", "--arg", "n=4096", "--arg",
                 "max_iter=400", "--device", DEVICE, "--model", str(model_dir), "--json"]) == 0
    assert "'break'" not in json.loads(capsys.readouterr().out)["counts_note"]
