"""``benchmarks.trip_sweep``: the model scored with a data-dependent loop assumed to run N times (no refit)."""
from __future__ import annotations

from pathlib import Path

import pytest

import kgraph.analysis.trips as trips
from benchmarks.dataset_eval import evaluate
from benchmarks.trip_sweep import COLUMNS, main, sweep

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "data" / "datasets" / "ci-tiny"
LOOP = """__kernel void walk(__global const int *next, __global float *out, const int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    float acc = 0.0f;
    int j = i;
    while (next[j] >= 0) { acc += sqrt((float)j) * 1.5f; j = next[j]; }
    out[i] = acc;
}
"""


def test_one_iteration_is_the_shipped_answer_and_the_constant_is_restored():
    frame = sweep(1, "models/default", [TINY])
    summary, _ = evaluate(TINY, {"model": "models/default"})
    whole = summary[summary["family"].isna()].iloc[0]
    assert frame.iloc[0]["dataset"] == "ci-tiny" and frame.iloc[0]["trip"] == 1
    assert [frame.iloc[0][c] for c in COLUMNS] == pytest.approx([whole[c] for c in COLUMNS])
    assert trips.ASSUMED_TRIP == 1


def test_the_assumption_reaches_the_model(tmp_path, monkeypatch):
    """What the sweep changes is what the model reads: a walk along a list is priced higher at 8 iterations."""
    import kgraph

    source = tmp_path / "walk.cl"
    source.write_text(LOOP)
    times = []
    for trip in (1, 8):
        monkeypatch.setattr(trips, "ASSUMED_TRIP", trip)
        model = kgraph.load_model()
        times.append(model.estimate(source, "walk", [1 << 20], [256], {"n": 1 << 20}, device="nvidia-h200")["time_ns"])
    assert times[1] > 1.5 * times[0]


def test_misuse_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["--trip", "0", str(TINY)])
    assert "--trip 0: at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--trip", "2", "nowhere"])
    assert "nowhere: not a dataset folder" in capsys.readouterr().err
