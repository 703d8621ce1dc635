"""benchmarks.starpu_five_runs_summary: the issue-12 goal columns computed from two five-run tables."""
from __future__ import annotations

import csv

from benchmarks.starpu_five_runs_summary import main

MODELS = ("kgraph", "kgraph-adaptive", "history", "regression", "eager")
FIELDS = ["workload", "size", "model", "run", "status", "makespan_ms", "mean_abs_log_error", "tasks", "predicted_tasks",
          "uncalibrated_tasks", "on_cpu", "on_opencl", "cost_calls", "cost_ns_per_call", "wall_s"]


def _write(folder, makespans):
    folder.mkdir()
    for tag in ("gpu", "cpu"):
        with open(folder / f"five_runs-{tag}.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, FIELDS)
            w.writeheader()
            for model, runs in makespans.items():
                for run, ms in enumerate(runs, 1):
                    w.writerow({"workload": "gemm", "size": "2x64", "model": model, "run": run, "status": "ok",
                                "makespan_ms": ms, "mean_abs_log_error": 0.5 / run, "tasks": 8, "predicted_tasks": 8,
                                "uncalibrated_tasks": 0, "on_cpu": 4, "on_opencl": 4, "cost_calls": 40,
                                "cost_ns_per_call": 500.0 if model.startswith("kgraph") else 0, "wall_s": 0.1})


def test_goals_from_makespans(tmp_path):
    # static run 1 = 10 vs history run 5 = 10 -> 1.00 (met); adaptive/history worst 12/10 at run 3 (missed)
    new = {"kgraph": [10, 10, 10], "kgraph-adaptive": [9, 9, 12], "history": [30, 10, 10],
           "regression": [20, 20, 20], "eager": [20, 20, 20]}
    old = {m: [v * 2 for v in runs] for m, runs in new.items()}
    _write(tmp_path / "new", new)
    _write(tmp_path / "old", old)
    main([str(tmp_path / "new"), str(tmp_path / "old"), "--title", "t"])
    md = (tmp_path / "new" / "summary.md").read_text()
    assert md.startswith("# t")
    assert "| gemm 2x64 | new | 1.00 yes | 1.20 (1/3 runs > 1) NO | yes |" in md
    assert "| new | 500 [500–500] | 500 [500–500] |" in md
    rows = list(csv.DictReader(open(tmp_path / "new" / "summary.csv")))
    assert len(rows) == 2 * 2 * len(MODELS) * 3  # two platforms, new and old, every model and run


def test_repeats_enter_as_medians(tmp_path):
    new = {"kgraph": [10, 10, 10], "kgraph-adaptive": [9, 9, 12], "history": [30, 10, 10],
           "regression": [20, 20, 20], "eager": [20, 20, 20]}
    _write(tmp_path / "new", new)
    _write(tmp_path / "old", new)
    for tag in ("gpu", "cpu"):  # two more repeats of every run: adaptive run 3 at 8 and 9 -> median 9 <= 10
        path = tmp_path / "new" / f"five_runs-{tag}.csv"
        rows = list(csv.DictReader(open(path)))
        extra = [{**r, "makespan_ms": ms} for r in rows if (r["model"], r["run"]) == ("kgraph-adaptive", "3")
                 for ms in (8, 9)]
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, list(rows[0]))
            w.writeheader()
            w.writerows(rows + extra)
    main([str(tmp_path / "new"), str(tmp_path / "old"), "--title", "t"])
    md = (tmp_path / "new" / "summary.md").read_text()
    assert "| gemm 2x64 | new | 1.00 yes | 0.90 (0/3 runs > 1) yes | yes |" in md
    assert "| gemm 2x64 | old | 1.00 yes | 1.20 (1/3 runs > 1) NO | yes |" in md
