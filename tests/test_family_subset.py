"""``benchmarks.family_subset``: dataset_eval's metrics over the families a decision has not looked at."""
from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.family_subset import main, subset_metrics


def _frame():
    return pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "family": ["f", "f", "g", "h"] * 2,
                         "true_ns": [100.0] * 8, "pred_ns": [110.0, 90.0, 300.0, 150.0, 100.0, 100.0, 100.0, 40.0],
                         "floor_ns": [10.0] * 8})


def test_excluded_families_leave_the_metrics():
    got = subset_metrics(_frame(), {"g"}).set_index("model")
    assert got.loc["a", "families"] == 2 and got.loc["a", "n"] == 3
    assert got.loc["a", "mape"] == pytest.approx(100 * (0.1 + 0.1 + 0.5) / 3)
    assert got.loc["b", "mape"] == pytest.approx(20.0) and got.loc["b", "within_2x"] == pytest.approx(200 / 3)
    everything = subset_metrics(_frame(), set()).set_index("model")
    assert everything.loc["a", "mape"] == pytest.approx(100 * (0.1 + 0.1 + 2.0 + 0.5) / 4)


def test_cli_writes_the_table_and_refuses_an_unknown_family(tmp_path, capsys):
    path = tmp_path / "predictions.parquet"
    _frame().to_parquet(path)
    assert main([str(path), "--exclude", "g", "--csv", str(tmp_path / "t.csv")]) == 0
    assert pd.read_csv(tmp_path / "t.csv")["n"].tolist() == [3, 3]
    with pytest.raises(SystemExit):
        main([str(path), "--exclude", "nope"])
    assert "--exclude nope: no such family" in capsys.readouterr().err
