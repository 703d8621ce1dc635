"""benchmarks.kernel_residual_history: a per-kernel bias is removed by the kernel's other launches, leave one out."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks.kernel_residual_history import corrected, main


def test_a_kernel_bias_is_removed_and_each_launch_is_left_out_of_its_own_correction(tmp_path, capsys):
    true = np.log([10.0, 20.0, 40.0, 5.0, 7.0])
    frame = pd.DataFrame({"device_id": ["d"] * 5, "kernel_id": ["a", "a", "a", "b", "c"], "true_log_time": true,
                          "pred_log_time": true - np.array([0.5, 0.5, 0.5, 0.2, -0.3])})
    out = corrected(frame).to_numpy()
    assert np.allclose(out[:3], true[:3])  # kernel a: predicted e^0.5 too fast every time; its history says so
    assert np.allclose(out[3:], frame["pred_log_time"].to_numpy()[3:])  # one launch a kernel: no history
    varying = frame.assign(pred_log_time=true - np.array([0.6, 0.0, -0.6, 0.0, 0.0]))
    assert not np.allclose(corrected(varying).to_numpy()[:3], true[:3])  # within-kernel error stays
    path = tmp_path / "p.parquet"
    frame.to_parquet(path)
    assert main([str(path)]) == 0 and "mape_history" in capsys.readouterr().out
