"""``kgraph dataset mark-elided``: kernels whose counted work ran faster than the device's peak allows."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from kgraph.app.cli.main import main
from kgraph.data.harness.elided import ELIDED_STATUS, elided_kernels, mark_elided, work_rate_ratio
from kgraph.data.harness.store import DatasetStore, read_launches
from kgraph.data.harness.validate import validate_dataset

CI_TINY = Path(__file__).resolve().parents[1] / "data/datasets/ci-tiny"


def test_ratio_is_counted_operations_per_ns_over_the_fp32_peak():
    frame = pd.DataFrame({"status": ["ok", "ok", "ok", "crash"], "kernel_id": ["a", "a", "b", "c"],
                          "int_ops": [1000, 10, 100, 10**9], "flops_fp32": [1000, 0, 0, 0], "flops_fp64": [0, 0, 0, 0],
                          "transcendental": [0, 0, 0, 0], "median_time_ns": [10.0, 10.0, 1.0, 1.0]})
    assert np.allclose(work_rate_ratio(frame, 100.0), [2.0, 0.01, 1.0, 1e7])
    # a kernel is elided when one ok launch is above 1; exactly the peak is not above it; other statuses never
    assert elided_kernels(frame, 100.0) == {"a": 2.0}
    unknown = frame.assign(int_ops=[-1, -1, -1, -1], flops_fp32=[-1, 5000, 0, 0])  # one count unknown: no ratio
    assert np.isnan(work_rate_ratio(unknown, 100.0)).all()


def test_mark_then_validate_then_nothing_left(tmp_path, capsys):
    d = tmp_path / "ds"
    shutil.copytree(CI_TINY, d)
    before = read_launches(d)
    peak = json.loads((d / "device.json").read_text())["roofline"]["fp32_gflops"]
    ok = before[before["status"] == "ok"]
    victim = ok["kernel_id"].iloc[0]
    row = ok[ok["kernel_id"] == victim].iloc[0]
    work = sum(int(row[c]) for c in ("int_ops", "flops_fp32", "flops_fp64", "transcendental"))
    fast = work / (3 * peak)  # three times the peak rate
    with DatasetStore(d) as store:
        store.update_rows({row["key"]: {"median_time_ns": fast, "min_time_ns": fast, "max_time_ns": fast}})
    assert any("compiler removed it" in p for p in validate_dataset(d))
    assert main(["dataset", "mark-elided", str(d)]) == 0
    assert f"kernel(s) marked {ELIDED_STATUS}" in capsys.readouterr().out
    after = read_launches(d).set_index("key")
    mine = ok[ok["kernel_id"] == victim]["key"]
    assert (after.loc[mine, "status"] == ELIDED_STATUS).all()
    assert after.loc[row["key"], "message"].startswith("counted work ran at up to 3.0x")
    others = ok[ok["kernel_id"] != victim]["key"]
    assert (after.loc[others, "status"] == "ok").all()
    assert not any("compiler removed it" in p for p in validate_dataset(d))
    assert mark_elided(d) == (0, {})


def test_hand_written_datasets_have_no_elided_kernel():
    for name in ("nvidia-h200", "pocl-skylake-avx512-intel-xeon", "holdout-nvidia-h200"):
        d = CI_TINY.parent / name
        frame = read_launches(d)
        assert elided_kernels(frame, json.loads((d / "device.json").read_text())["roofline"]["fp32_gflops"]) == {}
