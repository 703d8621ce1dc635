"""``benchmarks.loaded_atomic_ratios``: the range the loaded-address atomics warning quotes, from scored sets."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.loaded_atomic_ratios import main, ratios

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "data" / "datasets"


def _scored(folder: Path, rows: pd.DataFrame, scale: float) -> None:
    """A stand-in for score_sets.sh's output on one measured set: every launch predicted at ``scale`` x its time."""
    (folder / "holdout2-nvidia-h200").mkdir(parents=True)
    pd.DataFrame({"model": "shipped", "key": rows["key"], "true_ns": rows["median_time_ns"],
                  "pred_ns": rows["median_time_ns"] * scale}).to_parquet(folder / "holdout2-nvidia-h200" /
                                                                          "predictions.parquet")


def test_only_kernels_with_a_loaded_address_atomic_and_their_median_ratio(tmp_path):
    from kgraph.data.harness.store import read_launches

    rows = read_launches(DATASETS / "holdout2-nvidia-h200")
    rows = rows[rows["status"] == "ok"]
    _scored(tmp_path, rows, 3.0)
    frame = ratios(tmp_path, "shipped", DATASETS)
    # the second set's kernels with such an atomic (BENCHMARKS.md section 57): the binning kernel, not the others
    assert "particle_binning_atomic" in set(frame["kernel"]) and "saxpy" not in set(frame["kernel"])
    assert set(frame["kernel"]) < set(rows["kernel_name"])
    assert frame["median_ratio"].tolist() == pytest.approx([3.0] * len(frame))
    assert frame["launches"].sum() < len(rows)


def test_misuse_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "no holdout*-<device>/predictions.parquet" in capsys.readouterr().err
