"""kgraph report: markdown rows/columns and hand-checked metrics from hand-made prediction runs."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from kgraph.app.cli.main import main
from kgraph.models.predictions import read_runs, to_frame, write_predictions

ROOF = {"dev": {"roofline": {"copy_bw_gbs": 10.0, "fp32_gflops": 100.0, "fp64_gflops": 50.0}}}


def launches() -> pd.DataFrame:
    return pd.DataFrame({"key": ["a", "b", "c", "d"], "device_id": "dev", "kernel_id": ["k1", "k1", "k2", "k2"],
                         "family": ["f1", "f1", "f2", "f2"], "kernel_name": "k",
                         "median_time_ns": [1000.0, 2000.0, 4000.0, 8000.0], "achieved_bw_gbs": 1.0,
                         "footprint_bytes": -1, "flops_fp32": 100, "flops_fp64": 0, "global_load_bytes": 50,
                         "global_store_bytes": 50, "bound": ["memory", "memory", "compute", "latency"]})


def write_runs(tmp_path):
    rows = launches()
    # model A: +10%, -20%, +50%, exact; bound right on 3 of 4
    a = {"log_time": np.log([1100.0, 1600.0, 6000.0, 8000.0]), "bound": np.array([0, 0, 1, 0])}
    # time-only model answering one launch by fallback
    b = {"log_time": np.log([1000.0, 2000.0, 4000.0, 4000.0]), "fallback": np.array([False, False, False, True])}
    write_predictions(tmp_path / "run", to_frame(a, rows, "hybrid", "random"), ROOF, {"encoder": "bag"})
    write_predictions(tmp_path / "run", to_frame(b, rows, "starpu_history", "random"), ROOF)
    return tmp_path / "run"


def test_run_format_round_trip(tmp_path):
    frame, meta = read_runs([write_runs(tmp_path)])
    assert len(frame) == 8 and set(frame["model"]) == {"hybrid", "starpu_history"}
    assert meta["devices"]["dev"]["copy_bw_gbs"] == 10.0
    assert frame["true_log_time"].iloc[1] == np.float32(math.log(2000.0))  # float32 targets


def test_report_table_and_plots(tmp_path, capsys):
    run = write_runs(tmp_path)
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    lines = text.splitlines()
    header = next(l for l in lines if l.startswith("| model | launches"))
    assert "time MAPE %" in header and "bound acc" in header and "coverage" in header
    hybrid = next(l for l in lines if l.startswith("| hybrid | 4 |")).split(" | ")
    # MAPE (10 + 20 + 50 + 0) / 4 = 20.0; median APE 15.0; within 25%: 3/4; bound 3/4
    assert hybrid[2:5] == ["100%", "20.0", "15.0"] and hybrid[-1] == "75.0% |"
    history = next(l for l in lines if l.startswith("| starpu_history | 4 |")).split(" | ")
    assert history[2:4] == ["75%", "12.5"] and history[-1] == "n/a |"  # time-only: bound n/a
    assert "| f1 | 15.0 | 0.0 |" in text and "| f2 | 25.0 | 25.0 |" in text
    for png in ("scatter-random.png", "family-random.png", "roofline-random-dev.png"):
        assert (tmp_path / "rep" / png).stat().st_size > 1000 and f"]({png})" in text
    assert "`hybrid`: encoder=bag" in text


def test_report_bad_run(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing")]) == 1
    assert "no such run directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 1
    assert "no predictions-*.parquet" in capsys.readouterr().err
