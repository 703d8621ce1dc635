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


def test_average_predictions_means_logs_and_votes_bounds():
    from benchmarks.average_predictions import average

    def frame(keys, pred, bound):
        return pd.DataFrame({"key": keys, "true_log_time": np.log([100.0] * len(keys)),
                             "pred_log_time": np.log(pred), "pred_log_bytes": np.log(pred),
                             "pred_bound": bound, "model": "m"})

    a = frame(["x", "y", "z"], [200.0, 50.0, 100.0], ["memory", "compute", "latency"])
    b = frame(["y", "x"], [200.0, 50.0], ["memory", "memory"])
    c = frame(["x", "y"], [100.0, 100.0], ["compute", "latency"])
    out = average([a, b, c], "ens").set_index("key")
    assert list(out.index) == ["x", "y"] and set(out.model) == {"ens"}  # launches every member has
    assert np.allclose(np.exp(out.pred_log_time), [np.cbrt(200 * 50 * 100), np.cbrt(50 * 200 * 100)])
    assert np.allclose(out.pred_log_bytes, out.pred_log_time)
    assert out.loc["x", "pred_bound"] == "memory"  # two of three
    assert out.loc["y", "pred_bound"] == "compute"  # a three-way tie: the first member's


def test_average_predictions_refuses_disjoint_files():
    import pytest

    from benchmarks.average_predictions import average
    from kgraph.errors import UsageError

    one = pd.DataFrame({"key": ["a"], "pred_log_time": [1.0], "pred_bound": ["memory"]})
    two = pd.DataFrame({"key": ["b"], "pred_log_time": [1.0], "pred_bound": ["memory"]})
    with pytest.raises(UsageError, match="share no launch key"):
        average([one, two], "e")
    with pytest.raises(UsageError, match="at least two"):
        average([one], "e")
