"""``benchmarks.worn_sets``: the scores a shipping rule reads from an lm_ablation_eval.sh output folder."""
from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.worn_sets import FOREIGN, HOLDOUT, LATER, main, worn_table


def _folder(tmp_path, second=True, fresh=False):
    for i, name in enumerate(HOLDOUT):
        (tmp_path / name).mkdir()
        pd.DataFrame({"model": ["a", "a", "b"], "n": [10, 5, 10], "mape": [10.0 + i, 99.0, 20.0 + i],
                      "below_floor": [0, 0, 1], "family": [None, "holdout.x", None]}).to_csv(tmp_path / name / "summary.csv",
                                                                                                 index=False)
    for name in FOREIGN:
        for model, mape in (("a", 30.0), ("b", 40.0)):
            (tmp_path / f"{name}-{model}.log").write_text(
                f"43 kernels on dev: MAPE {mape}%, median APE 1%\npredictions below the physical floor: 0; ...\n")
    if second:
        (tmp_path / "holdout2-nvidia-h200").mkdir()
        pd.DataFrame({"model": ["a", "a", "b", "b"], "family": ["f", "worn", "f", "worn"], "true_ns": [100.0] * 4,
                      "pred_ns": [150.0, 900.0, 100.0, 100.0], "floor_ns": [1.0] * 4}).to_parquet(
            tmp_path / "holdout2-nvidia-h200" / "predictions.parquet")
    if fresh:
        for i, name in enumerate(LATER["holdout3"][:2] + LATER["holdout4"][:1]):
            (tmp_path / name).mkdir()
            pd.DataFrame({"model": ["a", "b", "a"], "n": [24, 24, 3], "mape": [5.0 + i, 7.0, 80.0],
                          "within_2x": [100.0, 90.0 - i, 0.0], "below_floor": [0, 2, 0],
                          "family": [None, None, "holdout3.x"]}).to_csv(tmp_path / name / "summary.csv", index=False)
    return tmp_path


def test_the_third_holdout_where_it_was_scored(tmp_path):
    table = worn_table(_folder(tmp_path, fresh=True), {"worn"}).set_index("model")
    assert table.loc["a", "holdout3_sum"] == pytest.approx(5 + 6) and table.loc["b", "holdout3_sum"] == pytest.approx(14)
    assert table.loc["a", "holdout4_sum"] == pytest.approx(7) and table.loc["b", "holdout4-nvidia-h200:within_2x"] == 88
    assert table.loc["b", "holdout3-nvidia-h100:within_2x"] == pytest.approx(89.0)
    assert "holdout3-pocl-xeon" not in table  # not scored: no column, not a zero
    assert table.loc["b", "below_floor"] == 3 + 6 and table.loc["a", "below_floor"] == 0
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "holdout3_sum" not in worn_table(_folder(plain), {"worn"})


def test_sums_and_the_untouched_families(tmp_path):
    table = worn_table(_folder(tmp_path), {"worn"}).set_index("model")
    assert table.loc["a", "worn_sum"] == pytest.approx(10 + 11 + 12 + 30 + 30)
    assert table.loc["b", "worn_sum"] == pytest.approx(20 + 21 + 22 + 40 + 40)
    assert table.loc["a", "holdout2-nvidia-h200"] == pytest.approx(50.0)  # 'worn' left out
    assert table.loc["a", "untouched_sum"] == pytest.approx(50.0) and table.loc["b", "untouched_sum"] == 0
    assert table.loc["b", "below_floor"] == 3 and table.loc["a", "below_floor"] == 0


def test_cli_refuses_a_folder_without_the_holdout(tmp_path, capsys):
    folder = tmp_path / "eval"
    folder.mkdir()
    assert main([str(_folder(folder)), "--exclude", "worn", "--csv", str(tmp_path / "t.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "t.csv")) == 2
    with pytest.raises(SystemExit):
        main([str(tmp_path / "nothing")])
    assert "not an lm_ablation_eval.sh output folder" in capsys.readouterr().err
