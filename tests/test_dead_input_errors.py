"""``benchmarks.dead_input_errors``: held-out misses on generated kernels with a dead input against the others."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from benchmarks.dead_input_errors import dead_input_table, main


def _predictions():
    ln2 = math.log(2.0)
    # k1 (dead input): two members predict 4x and 2x on one key -> mean log 3/2 ln 2 -> 2.83x; k2: exact
    return pd.DataFrame({"key": ["a", "a", "b", "c"], "kernel_id": ["gen.0.1", "gen.0.1", "gen.0.2", "x.1"],
                         "device_id": ["d"] * 4, "true_log_time": [5.0, 5.0, 6.0, 7.0],
                         "pred_log_time": [5.0 + 2 * ln2, 5.0 + ln2, 6.0, 1.0]})


def test_members_are_averaged_in_log_space_and_unchecked_kernels_left_out():
    table = dead_input_table(_predictions(), {"gen.0.1": ["a0"], "gen.0.2": []}).set_index("dead_input")
    assert table.loc[True, "rows"] == 1 and table.loc[True, "median_pred_over_true"] == pytest.approx(2 ** 1.5)
    assert table.loc[True, "mape"] == pytest.approx(100 * (2 ** 1.5 - 1)) and table.loc[True, "pred_above_2x_pct"] == 100
    assert table.loc[False, "mape"] == 0 and table.loc[False, "kernels"] == 1  # x.1 was not checked


def test_cli(tmp_path, capsys):
    _predictions().to_parquet(tmp_path / "p.parquet")
    (tmp_path / "c.json").write_text(json.dumps({"gen.0.1": ["a0"], "gen.0.2": []}))
    assert main([str(tmp_path / "*.parquet"), "--checked", str(tmp_path / "c.json"), "--csv", str(tmp_path / "t.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "t.csv")) == 2
    with pytest.raises(SystemExit):
        main([str(tmp_path / "none*.parquet"), "--checked", str(tmp_path / "c.json")])
    assert "no prediction file matches" in capsys.readouterr().err
