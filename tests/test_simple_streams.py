"""benchmarks/simple_streams.py: every probe kernel builds into a launch the shipped model prices, and the table's
ratio is the prediction over the measured time (the measuring side needs a device: its rows are in the results)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks import simple_streams


def test_every_probe_kernel_is_priced_and_ratios_are_prediction_over_measured(tmp_path):
    rows = [{"kernel": k, "n": 1 << 20, "device_id": "nvidia-h200", "status": "ok", "median_time_ns": 1e4,
             "message": ""} for k in simple_streams.KERNELS]
    rows.append({"kernel": "fill1", "n": 1 << 20, "device_id": "nvidia-h200", "status": "timeout",
                 "median_time_ns": np.nan, "message": "killed"})
    pd.DataFrame(rows).to_csv(tmp_path / "m.csv", index=False)
    df = simple_streams.predict([tmp_path / "m.csv"], {"v": "models/default"})
    assert len(df) == len(simple_streams.KERNELS)  # the failed row is left out
    assert list(df.kernel) == list(simple_streams.KERNELS)
    assert (df.v_ns > 0).all() and np.allclose(df.v_x, df.v_ns / 1e4)
