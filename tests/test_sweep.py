"""`kgraph sweep`: runs read back through their summary files, a results table and the best run."""
from __future__ import annotations

import csv
import sys
import textwrap

import yaml

from kgraph.app.cli.main import main

FAKE_FIT = textwrap.dedent("""
    import json, os, sys
    args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    x, kind = float(args["x"]), args["kind"]
    if kind == "broken":
        sys.exit(3)
    score = (x - 2) ** 2 + (0.5 if kind == "b" else 0)
    summary = {"run_id": os.environ["WANDB_RUN_ID"], "group": os.environ["WANDB_RUN_GROUP"],
               "metrics": {"val/time_mape": score + 10, "train/loss": 1.0},  # last value, worse than best
               "best": {"monitor": "val/time_mape", "mode": "min", "score": score, "path": f"ckpt-{x}-{kind}"}}
    if kind != "silent":
        open(os.environ["KGRAPH_SUMMARY_FILE"], "w").write(json.dumps(summary))
""")


def write_sweep(tmp_path, kinds):
    script = tmp_path / "fake_fit.py"
    script.write_text(FAKE_FIT)
    sweep = {"method": "grid", "metric": {"name": "val/time_mape", "goal": "minimize"},
             "parameters": {"x": {"values": [1, 2, 3]}, "kind": {"values": kinds}},
             "command": [sys.executable, str(script), "${args}"]}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(sweep, sort_keys=False))
    return path


def test_sweep_prints_results_table_and_best_run(tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["sweep", str(write_sweep(tmp_path, ["a", "b", "broken", "silent"])), "--out", str(out)])
    assert rc == 1  # the broken runs failed
    text = capsys.readouterr().out
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0].split("|")[1:-1] == [" run ", " run id ", " x ", " kind ", " val/time_mape ", " status "]
    assert len(table) == 1 + 12  # header + one row per run
    rows = {(r[3].strip(), r[4].strip()): r for r in (line.split("|") for line in table[1:])}
    assert rows[("2", "a")][5].strip() == "0" and rows[("1", "b")][5].strip() == "1.5"  # best score, not last
    assert rows[("3", "broken")][6].strip() == "exit 3" and rows[("3", "broken")][5].strip() == "n/a"
    assert rows[("1", "silent")][6].strip() == "ok, no summary"
    best = [line for line in text.splitlines() if line.startswith("best:")]
    assert best and best[0].startswith("best: run 5 (") and "val/time_mape = 0 with --x=2 --kind=a" in best[0]
    assert "checkpoint ckpt-2.0-a" in best[0]
    with (out / "results.csv").open() as f:
        records = list(csv.DictReader(f))
    assert len(records) == 12 and records[4]["val/time_mape"] == "0.0" and records[4]["run_id"].endswith("-005")
    assert len({r["run_id"] for r in records}) == 12  # every run its own W&B id
    assert (out / "results.md").read_text().startswith("sweep results (12 runs")


def test_sweep_maximize_and_dry_run(tmp_path, capsys):
    from kgraph.app.cli.sweep import best_row

    rows = [{"n": 1, "value": 0.2}, {"n": 2, "value": None}, {"n": 3, "value": 0.7}]
    assert best_row(rows, "maximize")["n"] == 3 and best_row(rows, "minimize")["n"] == 1
    assert best_row([{"n": 1, "value": None}], "minimize") is None
    out = tmp_path / "dry"
    assert main(["sweep", str(write_sweep(tmp_path, ["a"])), "--dry-run", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("fake_fit.py") == 3 and "sweep results" not in text and not out.exists()
