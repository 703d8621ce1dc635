"""benchmarks.remeasure_noise: two measurements of the same launches, paired by key and compared per decade."""
from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.remeasure_noise import main, paired, table


def frame(rows):
    return pd.DataFrame(rows, columns=["key", "status", "median_time_ns"])


def test_pairs_only_ok_launches_in_both_and_reports_the_spread():
    new = frame([("a", "ok", 5_000.0), ("b", "ok", 220_000.0), ("c", "ok", 1.0e6), ("d", "timeout", 9.0)])
    old = frame([("a", "ok", 4_000.0), ("b", "ok", 200_000.0), ("d", "ok", 10.0), ("e", "ok", 7.0)])
    pairs = paired(new, old)
    assert sorted(pairs["key"]) == ["a", "b"]  # c only in new, d not ok in new, e only in old
    out = table(pairs).set_index("time_ns")
    assert out.loc["all", "n"] == 2
    assert out.loc["all", "mean_pct"] == pytest.approx((25.0 + 10.0) / 2)
    assert out.loc["all", "within_10pct"] == 0.0  # 25% and exactly 10% are both outside
    assert out.loc["[1000.0, 10000.0)", "median_ratio"] == pytest.approx(1.25)


def test_two_devices_are_refused(tmp_path, capsys):
    from tests.test_datamodule import write_dataset

    a = write_dataset(tmp_path / "a", "gpu-a", True)
    b = write_dataset(tmp_path / "b", "gpu-b", True)
    assert main([str(a), str(b)]) == 2
    assert "not the same device" in capsys.readouterr().err
    assert main([str(a), str(a)]) == 0  # the same folder twice: every launch matches itself exactly
    assert " 0.0 " in capsys.readouterr().out
