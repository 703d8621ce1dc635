"""The mean trip count of a data-dependent loop, solved from a launch's measured counts (data/trip_means.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import kgraph
from kgraph.count_keys import COUNT_KEYS, COUNTER_NAMES
from kgraph.data.features import compile_counts
from kgraph.data.trip_means import SOLVE_ORDER, trip_means, unknown_trips

BISECT = """__kernel void bisect(__global const float *x, __global int *out, float tol)
{
    int i = get_global_id(0);
    float lo = 0.0f, hi = x[i];
    int k = 0;
    while (hi - lo > tol) {
        float mid = 0.5f * (lo + hi);
        if (mid * mid > x[i]) hi = mid; else lo = mid;
        k++;
    }
    out[i] = k;
}
"""


def _evaluate(source: str, name: str):
    graph = next(g for g in kgraph.from_source(source, "opencl", filename="<t>") if g.name == name)
    return compile_counts(graph.analysis)


def _env(n: int) -> dict:
    env = {f"{p}{d}": np.ones(n) for p in ("gsz", "lsz", "ngrp") for d in range(3)}
    env["gsz0"], env["tol"] = np.array([1024.0, 4096.0, 256.0])[:n], np.full(n, 1e-3)
    return env


def test_the_mean_that_made_the_counts_is_found():
    evaluate, env = _evaluate(BISECT, "bisect"), _env(3)
    assert unknown_trips(evaluate, env) == ["trip_6"]
    true = np.array([12.0, 0.0, 23.5])
    counts = evaluate({**env, "trip_6": true})[:len(COUNT_KEYS)] * env["gsz0"]  # whole-launch counts
    measured = {k: counts[COUNT_KEYS.index(k)] for k in COUNTER_NAMES}
    np.testing.assert_allclose(trip_means(evaluate, env, env["gsz0"], measured)["trip_6"], true, atol=1e-9)
    # without the first count of the order, the next one the loop changes gives the same means
    first = SOLVE_ORDER[0]
    fewer = {**measured, first: np.full(3, np.nan)}
    np.testing.assert_allclose(trip_means(evaluate, env, env["gsz0"], fewer)["trip_6"], true, atol=1e-9)


def test_counts_the_mean_cannot_reproduce_give_nan():
    evaluate, env = _evaluate(BISECT, "bisect"), _env(2)
    counts = evaluate({**env, "trip_6": np.array([5.0, 5.0])})[:len(COUNT_KEYS)] * env["gsz0"]
    measured = {k: counts[COUNT_KEYS.index(k)] for k in COUNTER_NAMES}
    np.testing.assert_allclose(trip_means(evaluate, env, env["gsz0"], measured)["trip_6"], [5.0, 5.0])
    # a count below its loop-free part: the mean would be negative, is clipped to 0, and then does not reproduce it
    short = {**measured, SOLVE_ORDER[0]: np.array([1.0, 1.0])}
    assert np.isnan(trip_means(evaluate, env, env["gsz0"], short)["trip_6"]).all()


def test_kernels_without_or_with_two_such_loops_get_nothing():
    plain = _evaluate("__kernel void k(__global float *a) { a[get_global_id(0)] = 1.0f; }", "k")
    assert trip_means(plain, _env(1), np.ones(1), {}) == {}
    two = BISECT.replace("out[i] = k;", "while (lo > tol) lo *= 0.5f;\n    out[i] = k;")
    evaluate = _evaluate(two, "bisect")
    assert len(unknown_trips(evaluate, _env(1))) == 2 and trip_means(evaluate, _env(1), np.ones(1), {}) == {}


def test_dataset_rows_get_their_means_and_then_exact_features():
    import json

    import pandas as pd

    from kgraph.data.features import feature_names, to_launch_features
    from kgraph.data.trip_means import with_trip_means

    evaluate, env = _evaluate(BISECT, "bisect"), _env(2)
    counts = evaluate({**env, "trip_6": np.array([7.0, 30.0])})[:len(COUNT_KEYS)] * env["gsz0"]
    rows = pd.DataFrame([{"device_id": "d", "source_id": "s", "kernel_name": "bisect", "dims": 1, "g0": g, "g1": 1,
                          "g2": 1, "l0": 64, "l1": 1, "l2": 1, "args": json.dumps({"tol": 1e-3}),
                          **{k: counts[COUNT_KEYS.index(k)][j] for k in COUNTER_NAMES}}
                         for j, g in enumerate((1024, 4096))])
    sources = pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": BISECT}])
    filled = with_trip_means(rows, sources)
    assert [json.loads(a)["trip_6"] for a in filled["args"]] == [7.0, 30.0] and rows["args"][0] == '{"tol": 0.001}'
    device = json.loads((Path(__file__).resolve().parents[1] / "data/datasets/ci-tiny/device.json").read_text())
    x = to_launch_features(filled, sources, {"d": device})
    f = {n: x[:, i] for i, n in enumerate(feature_names())}
    assert f["static_known"].tolist() == [1.0, 1.0]
    np.testing.assert_allclose(np.expm1(f["static_flops_fp32"]), [4 * 7 + 1, 4 * 30 + 1], rtol=1e-5)
