"""Baselines: roofline and StarPU models on hand-computed rows, GBT and token regressor on ci-tiny."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kgraph.data.features import BOUND_CLASSES
from kgraph.models.baselines import (HistoryBaseline, LaunchRows, RegressionBaseline, RooflineBaseline,
                              StaticGBTBaseline, TokenRegressorBaseline)

SAXPY = ("kernel void saxpy(int n, float a, global const float* x, global float* y)"
         "{ int i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i]; }")
DEVICE = {"device_id": "dev", "type": "GPU", "compute_units": 4, "max_clock_mhz": 1000, "global_mem_bytes": 2**30,
          "local_mem_bytes": 65536, "max_work_group_size": 256, "global_cache_bytes": 2**20,
          "roofline": {"copy_bw_gbs": 10.0, "fp32_gflops": 100.0, "fp64_gflops": 50.0, "local_bw_gbs": 20.0,
                       "launch_overhead_us": 5.0}}
SPEC = {"args": [{"name": "n", "kind": "scalar", "dtype": "int32", "count": "n"},
                 {"name": "a", "kind": "scalar", "dtype": "float32", "count": "1.5"},
                 {"name": "x", "kind": "buffer", "dtype": "float32", "count": "n"},
                 {"name": "y", "kind": "buffer", "dtype": "float32", "count": "n"}]}
CI_TINY = Path(__file__).resolve().parent.parent / "data" / "datasets" / "ci-tiny"


def saxpy_rows(ns, times, kernel_id="saxpy") -> LaunchRows:
    launches = pd.DataFrame({
        "key": [f"k{i}" for i in range(len(ns))], "device_id": "dev", "kernel_id": kernel_id, "family": "axpy",
        "source_id": "s1", "kernel_name": "saxpy", "sizes": [json.dumps({"n": n}) for n in ns],
        "args": [json.dumps({"n": n, "a": 1.5}) for n in ns], "dims": 1, "g0": ns, "g1": 1, "g2": 1,
        "l0": 64, "l1": 1, "l2": 1, "status": "ok", "median_time_ns": times})
    sources = pd.DataFrame({"source_id": ["s1"], "lang": ["opencl"], "source": [SAXPY],
                            "spec_json": [json.dumps(SPEC)]})
    return LaunchRows(launches, sources, {"dev": DEVICE})


def test_roofline_hand_computed():
    # n = 1024: 2048 FLOPs, 12288 bytes; max(2048/100, 12288/10) = 1228.8 ns; + 5 us overhead
    rows = saxpy_rows([1024], [7457.6])
    out = RooflineBaseline().fit(rows).predict(rows)
    assert math.exp(out["log_time"][0]) == pytest.approx(6228.8, rel=1e-5)
    assert math.expm1(out["log_bandwidth"][0]) / 1000 == pytest.approx(12288 / 6228.8, rel=1e-5)
    assert math.expm1(out["log_flops"][0]) == pytest.approx(2048, rel=1e-5)
    assert math.expm1(out["log_bytes"][0]) == pytest.approx(12288, rel=1e-5)
    assert np.isnan(out["log_footprint"][0])
    assert BOUND_CLASSES[out["bound"][0]] == "memory"  # bw util 0.197, flop util 0.0033
    # one global factor: measured excess 2457.6 ns = 2 x the roof term
    fitted = RooflineBaseline(fit_efficiency=True).fit(rows)
    assert fitted.factor == pytest.approx(2.0, rel=1e-5)
    assert math.exp(fitted.predict(rows)["log_time"][0]) == pytest.approx(7457.6, rel=1e-5)


def test_roofline_latency_bound_small_launch():
    out = RooflineBaseline().predict(saxpy_rows([64], [1.0]))
    # 768 bytes -> 76.8 ns roof + 5000 ns overhead: bw util 768/5076.8/10 = 1.5% -> latency
    assert math.exp(out["log_time"][0]) == pytest.approx(5076.8, rel=1e-5)
    assert BOUND_CLASSES[out["bound"][0]] == "latency"


def test_starpu_history_and_regression_hand_computed():
    # data bytes = 8 n; t = 2 * (8n)^1  ->  a = 2, b = 1
    train = saxpy_rows([1024, 4096], [2 * 8 * 1024, 2 * 8 * 4096])
    test = pd.concat([train.launches.iloc[[0]], saxpy_rows([2048], [1.0]).launches,
                      saxpy_rows([2048], [1.0], kernel_id="other").launches], ignore_index=True)
    rows = LaunchRows(test, train.sources, train.devices)
    reg = RegressionBaseline().fit(train).predict(rows)
    assert np.exp(reg["log_time"][:2]) == pytest.approx([16384, 32768], rel=1e-6)
    mean = (math.log(16384) + math.log(65536)) / 2
    assert reg["log_time"][2] == pytest.approx(mean) and reg["fallback"].tolist() == [False, False, True]
    hist = HistoryBaseline().fit(train).predict(rows)
    assert hist["log_time"][0] == pytest.approx(math.log(16384))  # same configuration
    assert hist["log_time"][1] == pytest.approx(mean)  # same kernel, unseen size: kernel mean
    assert hist["fallback"].tolist() == [False, False, True]
    assert (hist["bound"] == -1).all() and np.isnan(hist["log_bandwidth"]).all()


@pytest.fixture(scope="module")
def ci_tiny():
    if not (CI_TINY / "sources.parquet").is_file():
        pytest.skip("data/datasets/ci-tiny not built yet")
    full = LaunchRows.from_datasets([CI_TINY])
    kernels = sorted(full.launches["kernel_id"].unique())[::10]  # every 10th kernel: a fast, varied subset
    keep = full.launches["kernel_id"].isin(kernels).to_numpy()
    rows = LaunchRows(full.launches[keep].reset_index(drop=True), full.sources, full.devices)
    order = np.random.default_rng(0).permutation(len(rows))
    cut = int(0.8 * len(rows))
    return rows.take(np.sort(order[:cut])), rows.take(np.sort(order[cut:]))


def test_static_gbt_fit_predict_ci_tiny(ci_tiny):
    train, test = ci_tiny
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # small tables: OpenMP threads only contend
        out = StaticGBTBaseline(max_iter=40, min_samples_leaf=3).fit(train).predict(test)
        again = StaticGBTBaseline(max_iter=40, min_samples_leaf=3).fit(train).predict(test)
    assert set(out) >= {"log_time", "log_bandwidth", "log_footprint", "log_flops", "log_bytes", "bound"}
    assert np.isfinite(out["log_time"]).all() and len(out["log_time"]) == len(test)
    assert np.array_equal(out["log_time"], again["log_time"])
    true = test.targets()[0][:, 0]
    assert np.corrcoef(out["log_time"], true)[0, 1] > 0.8  # trees on static features rank times well
    assert set(out["bound"].tolist()) <= {0, 1, 2}


def test_token_regressor_ci_tiny(ci_tiny):
    train, test = ci_tiny
    model = TokenRegressorBaseline(encoder="bag", vocab_size=512).fit(train)
    out = model.predict(test)
    assert model.encoder_used == "bag"
    assert np.isfinite(out["log_time"]).all() and out["bound"].min() >= 0


def test_a_holdout_is_scored_with_the_devices_the_fit_was_trained_with():
    """benchmarks.static_gbt_out_of_corpus describes a device the fit knows by its training descriptor (the
    holdout campaign measured its own), and keeps a device it does not know as measured."""
    from benchmarks.static_gbt_out_of_corpus import described_as_trained

    rows = saxpy_rows([1024, 2048], [1e4, 2e4])
    trained = {"dev": {**DEVICE, "roofline": {**DEVICE["roofline"], "copy_bw_gbs": 12.5}}}
    seen = described_as_trained(rows, trained)
    assert seen.devices["dev"]["roofline"]["copy_bw_gbs"] == 12.5 and len(seen) == 2
    assert seen.roofline("copy_bw_gbs").tolist() == [12.5, 12.5]
    assert described_as_trained(rows, {"other": DEVICE}).devices["dev"] is DEVICE
