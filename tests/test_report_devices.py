"""kgraph report per device: a table per split, one colour per device in plots, density for big scatters."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kgraph.app.report import plots, write_report
from kgraph.models.predictions import read_runs, to_frame, write_predictions

ROOF = {"roofline": {"copy_bw_gbs": 10.0, "fp32_gflops": 100.0, "fp64_gflops": 50.0}}
N = 3000  # launches per device: 6000 per model, past plots.DENSITY_POINTS


def launches(n: int = N) -> pd.DataFrame:
    time = np.tile(np.geomspace(1e3, 1e6, n), 2)
    return pd.DataFrame({"key": [f"l{i}" for i in range(2 * n)], "device_id": ["dev-b"] * n + ["dev-a"] * n,
                         "kernel_id": "k1", "family": "f1", "kernel_name": "k", "median_time_ns": time,
                         "achieved_bw_gbs": 1.0, "footprint_bytes": -1, "flops_fp32": 100, "flops_fp64": 0,
                         "global_load_bytes": 50, "global_store_bytes": 50, "bound": "memory"})


def write_run(tmp_path, n: int = N):
    rows = launches(n)
    # dev-b predicted 20% low, dev-a 10% high: per-device MAPE 20 and 10, pooled 15
    factor = np.where(rows["device_id"] == "dev-b", 0.8, 1.1)
    pred = {"log_time": np.log(rows["median_time_ns"].to_numpy() * factor)}
    write_predictions(tmp_path / "run", to_frame(pred, rows, "hybrid", "random"),
                      {"dev-a": ROOF, "dev-b": ROOF})
    return tmp_path / "run"


@pytest.fixture
def calls(monkeypatch):
    """Records every Axes.scatter and Axes.hexbin call of the plots (name, number of points, colour)."""
    from matplotlib.axes import Axes

    seen = []
    for name in ("scatter", "hexbin"):
        original = getattr(Axes, name)

        def wrapper(self, x, y, *args, _name=name, _original=original, **kwargs):
            seen.append((_name, len(x), kwargs.get("color"), kwargs.get("label")))
            return _original(self, x, y, *args, **kwargs)

        monkeypatch.setattr(Axes, name, wrapper)
    return seen


def test_per_device_table(tmp_path):
    path = write_report([write_run(tmp_path, 50)], tmp_path / "rep", plots=False)
    text = path.read_text()
    assert "Per device (`random`):" in text
    lines = text.splitlines()
    assert "| device | model | launches | time MAPE % |" in lines[lines.index("Per device (`random`):") + 2]
    assert "| dev-a | hybrid | 50 | 10.0 |" in text and "| dev-b | hybrid | 50 | 20.0 |" in text
    assert text.index("| dev-a | hybrid") < text.index("| dev-b | hybrid")  # sorted by device
    by_device = pd.read_csv(tmp_path / "rep" / "metrics_by_device.csv")
    assert by_device.set_index("device_id")["time_mape"].round(3).to_dict() == {"dev-b": 20.0, "dev-a": 10.0}
    assert pd.read_csv(tmp_path / "rep" / "metrics.csv")["time_mape"].round(3).tolist() == [15.0]


def test_device_colours_and_density(tmp_path, calls):
    colors = plots.device_colors(["dev-b", "dev-a", "dev-b"])
    assert colors == plots.device_colors(["dev-a", "dev-b"]) and colors["dev-a"] != colors["dev-b"]
    frame, meta = read_runs([write_run(tmp_path)])
    plots.to_scatter_png(frame.iloc[::100], tmp_path / "few.png")  # 60 points: coloured by device
    assert sorted(c[1:] for c in calls) == [(30, colors["dev-a"], "dev-a"), (30, colors["dev-b"], "dev-b")]
    calls.clear()
    plots.to_scatter_png(frame, tmp_path / "many.png")  # 6000 points: one density panel, no points
    assert [c[:2] for c in calls] == [("hexbin", 2 * N)]
    assert (tmp_path / "many.png").stat().st_size > 1000
    calls.clear()
    part = frame[frame["device_id"] == "dev-a"]
    plots.to_roofline_png(part, meta["devices"]["dev-a"], tmp_path / "roof.png", color=colors["dev-a"])
    assert ("scatter", N, colors["dev-a"], "measured") in calls
