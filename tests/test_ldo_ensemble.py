"""benchmarks.ldo_ensemble: each seed's leave-device-out error and the ensemble's (mean ln time)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from benchmarks.ldo_ensemble import ensemble_table, main


def _pred(path, preds: dict[str, float], family="gemm"):
    pd.DataFrame({"device_id": "d", "key": list(preds), "family": [family if k != "g" else "gen_x" for k in preds],
                  "true_log_time": 0.0, "pred_log_time": list(preds.values())}).to_parquet(path)
    return str(path)


def test_the_ensemble_is_the_mean_ln_time_of_the_seeds_on_shared_launches(tmp_path):
    a = _pred(tmp_path / "a.parquet", {"k1": math.log(2.0), "k2": 0.0, "g": math.log(4.0), "only_a": 5.0})
    b = _pred(tmp_path / "b.parquet", {"k1": math.log(0.5), "k2": math.log(3.0), "g": 0.0})
    t = ensemble_table([a, b], "r").set_index(["group", "member"])
    hw = t.loc[("hand-written", "ensemble")]
    # k1: ln 2 and ln 0.5 average to 0 (exact); k2: the mean of 0 and ln 3 is ln sqrt(3)
    assert hw["launches"] == 2 and hw["mape"] == pytest.approx((0 + (math.sqrt(3) - 1)) / 2 * 100)
    assert t.loc[("hand-written", "seed 0"), "mape"] == pytest.approx(50.0)  # |2 - 1| and 0
    assert t.loc[("hand-written", "seed 1"), "mape"] == pytest.approx((50 + 200) / 2)
    assert hw["seeds_mape_range"] == pytest.approx(75.0)
    assert t.loc[("generated", "ensemble"), "mape"] == pytest.approx(100.0) and t.loc[("all", "ensemble"), "launches"] == 3


def test_a_missing_file_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--pred", str(tmp_path / "none.parquet")])
    assert "none.parquet: no such file" in capsys.readouterr().err
