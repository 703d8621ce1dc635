"""benchmarks/ensemble.py: the log-space blend of two prediction files."""
import numpy as np
import pandas as pd

from benchmarks.ensemble import blend_errors, main


def _frame(keys, truth, pred):
    return pd.DataFrame({"key": keys, "true_log_time": np.log(truth), "pred_log_time": np.log(pred)})


def test_geometric_mean_cancels_opposite_errors():
    keys = ["a", "b"]
    over = _frame(keys, [100.0, 10.0], [200.0, 20.0])   # 2x too slow
    under = _frame(keys[::-1], [10.0, 100.0], [5.0, 50.0])  # 2x too fast, rows in another order
    rows = {w: (n, mape, mdape) for w, n, mape, mdape in blend_errors(over, under, [0.0, 0.5, 1.0])}
    assert rows[1.0][0] == 2 and np.allclose(rows[1.0][1:], (100.0, 100.0))
    assert np.allclose(rows[0.0][1:], (50.0, 50.0))
    assert abs(rows[0.5][1]) < 1e-9


def test_disjoint_files_are_a_clear_error(tmp_path, capsys):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    _frame(["x"], [1.0], [1.0]).to_parquet(a)
    _frame(["y"], [1.0], [1.0]).to_parquet(b)
    assert main([str(a), str(b)]) == 2
    assert "share no launch key" in capsys.readouterr().err
    assert main([str(a), str(b), "--weights", "2"]) == 2
    assert "--weights" in capsys.readouterr().err
