"""benchmarks.work_sources: each launch's class by what the source fixes of its work, and the mean trip solved from
measured counts (the given-trip ceiling)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.work_sources import KINDS, WORK, given_trips, launch_kind, scores, solve_trip, tables

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
SOURCES = {
    "exact": "__kernel void k(__global const float *a, __global float *b) { int i = get_global_id(0); "
             "b[i] = 2.0f * a[i] + 1.0f; }",
    "assumed_trip": "__kernel void k(__global const int *len, __global const float *a, __global float *b) {\n"
                    "int i = get_global_id(0); float s = 0.0f;\n"
                    "for (int j = 0; j < len[i]; j++)\n"
                    "  s += a[j] * 3.0f;\n"
                    "b[i] = s; }",
    "break": "__kernel void k(const int n, __global const float *a, __global int *c) { int i = get_global_id(0);\n"
             "int m = 0; for (int j = 0; j < n; j++) { if (a[j] > a[i]) break; m++; } c[i] = m; }",
    "branch": "__kernel void k(__global const float *a, __global float *b) { int i = get_global_id(0);\n"
              "if (a[i] > 0.0f) b[i] = sqrt(a[i]) * 3.0f + a[i]; }",
}


@pytest.fixture(scope="module")
def model(model_dir):
    import kgraph

    return kgraph.load_model(model_dir)


def _launch(model, tmp_path, kind, args=None):
    path = tmp_path / f"{kind}.cl"
    path.write_text(SOURCES[kind])
    req = {"file": path, "kernel": "k", "global": [4096], "local": [64], "device": DEVICE,
           "args": {"n": 4096, **(args or {})} if kind == "break" else (args or {})}
    launches, _, _ = model.launches_of([req])
    return launches[0], model.estimate_many([req])[0], req


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_each_kernel_gets_the_class_its_analysis_implies(model, tmp_path, kind):
    launch, record, _ = _launch(model, tmp_path, kind)
    assert launch_kind(record, launch) == kind


def test_a_given_trip_count_moves_the_launch_out_of_the_assumed_class(model, tmp_path):
    launch, record, _ = _launch(model, tmp_path, "assumed_trip", {"trip_3": 12})
    assert launch_kind(record, launch) == "exact"


def test_solve_trip_inverts_counts_affine_in_the_mean():
    w1, w2 = np.array([10.0, 10.0, 10.0, 5.0]), np.array([14.0, 14.0, 10.0, 9.0])
    t = solve_trip(w1, w2, np.array([50.0, 12.0, 30.0, 1.0]))
    assert t[0] == pytest.approx(11.0) and t[1] == pytest.approx(1.5)
    assert np.isnan(t[2]) and np.isnan(t[3])  # a loop that adds no work; a mean that is not positive


def test_given_trips_recovers_the_mean_that_made_the_measured_counts(model, tmp_path):
    """Counts measured at a mean of 12 iterations (the exact static counts with trip_3 = 12 given) give back 12."""
    launch, _, _ = _launch(model, tmp_path, "assumed_trip")
    given, _, _ = _launch(model, tmp_path, "assumed_trip", {"trip_3": 12})
    from kgraph.app.static_checks import _per_item, launch_envs
    from kgraph.models.launches import analysis_of

    counts = _per_item(analysis_of(given.graph), launch_envs([given]))
    row = pd.DataFrame([{c: float(counts[c][0] * 4096) for c in WORK}])
    trips = given_trips([launch], row)
    assert trips == {0: {"trip_3": pytest.approx(12.0)}}


def test_tables_score_each_class_and_the_ceiling():
    frame = pd.DataFrame({"device": "d", "family": ["a", "a", "b", "c"], "kind": ["exact", "exact", "assumed_trip",
                          "assumed_trip"], "true_ns": [100.0, 100.0, 100.0, 100.0], "pred_ns": [100.0, 300.0, 25.0, 50.0],
                          "lo_ns": [50.0, 50.0, 10.0, 10.0], "hi_ns": [200.0, 200.0, 50.0, 200.0],
                          "given_ns": [np.nan, np.nan, 120.0, np.nan], "given_lo_ns": [np.nan, np.nan, 110.0, np.nan],
                          "given_hi_ns": [np.nan, np.nan, 300.0, np.nan]})
    by_kind, ceiling = tables(frame)
    exact = by_kind.set_index("kind").loc["exact"]
    assert exact["launches"] == 2 and exact["mape"] == pytest.approx(100.0) and exact["within_2x"] == pytest.approx(50.0)
    assert by_kind.set_index("kind").loc["assumed_trip", "above"] == pytest.approx(50.0)
    assert list(ceiling["trip"]) == ["assumed", "given"] and list(ceiling["launches"]) == [1, 1]
    assert ceiling.set_index("trip").loc["given", "median_log2"] == pytest.approx(np.log2(1.2))
    assert ceiling.set_index("trip").loc["given", "below"] == pytest.approx(100.0)  # the given launch's own interval
    assert ceiling.set_index("trip").loc["assumed", "above"] == pytest.approx(100.0)
    assert set(by_kind["kind"]) <= set(KINDS)
    assert scores(frame.iloc[:1])["coverage"] == pytest.approx(100.0)



def test_tables_score_the_constant_priors_on_every_assumed_launch():
    frame = pd.DataFrame({"device": "d", "family": ["a", "b", "c"], "kind": ["exact", "assumed_trip", "assumed_trip"],
                          "true_ns": 100.0, "pred_ns": [100.0, 25.0, 50.0], "lo_ns": 10.0, "hi_ns": 1000.0,
                          "given_ns": np.nan, "given_lo_ns": np.nan, "given_hi_ns": np.nan,
                          "prior_8_ns": [np.nan, 100.0, 400.0]})
    _, ceiling = tables(frame)
    rows = ceiling.set_index("trip")
    assert list(rows.index) == ["assumed (all)", "prior 8"]  # no solved mean: no ceiling rows
    assert rows.loc["prior 8", "launches"] == 2 and rows.loc["prior 8", "mape"] == pytest.approx(150.0)
    assert rows.loc["assumed (all)", "within_2x"] == pytest.approx(50.0)


def test_launch_inputs_regenerate_what_the_harness_measured(model):
    """A hand-written set's launch with a loop bounded by its buffers' elements: its inputs are made again from its
    spec, and the loop's mean from them matches the one its measured instrumented counts imply."""
    import json

    from benchmarks.dataset_eval import launches_of, requests_of
    from benchmarks.work_sources import launch_inputs

    rows, files = launches_of(ROOT / "data/datasets/holdout4-nvidia-h200")
    rows = rows[rows["kernel_id"] == "holdout4.sell_c_sigma_spmv"].head(2).reset_index(drop=True)
    device = json.loads((ROOT / "data/datasets/holdout4-nvidia-h200/device.json").read_text())
    requests = requests_of(rows, files, model.devices.get(device["device_id"], device))
    launches, _, _ = model.launches_of(requests)
    data = dict(launch_inputs(rows, launches))
    assert sorted(data) == [0, 1]
    solved = given_trips(launches, rows)
    for i, arrays in data.items():
        derived = model.estimate_many([{**requests[i], "inputs": arrays}])[0]["derived_trips"]
        assert derived.keys() == solved[i].keys()
        assert derived == {k: pytest.approx(v, rel=1e-6) for k, v in solved[i].items()}
