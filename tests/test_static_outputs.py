"""The bound class of exactly counted launches follows from the predicted time (kgraph.app.static_outputs): the
measured rows' rule (kgraph.data.harness.derived) applied to the prediction, with the probability of the time
falling on the class's side of the latency threshold; launches without exact counts keep the model's class."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kgraph.app.static_outputs import derived_bound, with_static_outputs
from kgraph.data.harness.derived import derive_frame
from kgraph.models.launches import kernels_of, make_launch

ROOT = Path(__file__).resolve().parent.parent
ROOF = {"copy_bw_gbs": 1000.0, "fp32_gflops": 10000.0, "fp64_gflops": 5000.0}
DEVICE = {**json.loads((ROOT / "data/datasets/ci-tiny/device.json").read_text()), "device_id": "d"}


@pytest.mark.parametrize("flops, fp64, nbytes, time_ns", [
    (1e6, 0, 1e9, 2e6),       # 1e9 B in 2 ms: half the copy bandwidth -> memory
    (1e10, 0, 1e6, 2e6),      # 1e10 FLOPs in 2 ms: half the fp32 peak -> compute
    (1e10, 1e10, 1e6, 4e6),   # fp64: half of fp64's peak -> compute
    (1e3, 0, 1e3, 1e5),       # both utilisations far below 5% -> latency
])
def test_the_class_is_the_measured_rows_rule_at_the_predicted_time(flops, fp64, nbytes, time_ns):
    counts = {"flops": flops, "flops_fp64": fp64, "bytes": nbytes}
    bound, p = derived_bound(time_ns, counts, ROOF, None)
    row = pd.DataFrame([{"status": "ok", "median_time_ns": time_ns, "flops_fp32": flops - fp64, "flops_fp64": fp64,
                         "global_load_bytes": nbytes, "global_store_bytes": 0}])
    assert bound == derive_frame(row, ROOF)["bound"].iloc[0] and p is None


def test_the_probability_is_the_time_on_the_class_side_of_the_latency_threshold():
    counts = {"flops": 0.0, "flops_fp64": 0.0, "bytes": 1e6}  # 5% of 1000 GB/s is reached at t* = 20 us
    lo, hi = 0.5, 2.0  # an interval of x/2 .. x2 around the time
    at = lambda t: derived_bound(t, counts, ROOF, (t * lo, t * hi))  # noqa: E731
    bound, p = at(20_000.0)  # at the threshold: a coin flip
    assert p == pytest.approx(0.5, abs=1e-9)
    assert at(2_000.0) [0] == "memory" and at(2_000.0)[1] > 0.999  # ten times faster than t*
    assert at(200_000.0)[0] == "latency" and at(200_000.0)[1] > 0.999
    sigma = math.log(hi / lo) / (2 * 1.2815515655446004)
    want = 0.5 * math.erfc(math.log(20_000.0 / 10_000.0) / sigma / math.sqrt(2))  # P(T > t*) at t = t*/2
    assert at(10_000.0) == ("memory", pytest.approx(1 - want))
    assert derived_bound(1e3, {"flops": 0.0, "flops_fp64": 0.0, "bytes": 0.0}, ROOF, (500, 2000)) == ("latency", 1.0)


def test_only_exactly_counted_launches_get_the_derived_class():
    source = ROOT / "examples/opencl/saxpy.cl"
    graphs = kernels_of(str(source))
    exact = make_launch(graphs, "saxpy", [1 << 20], [256], {"n": 1 << 20, "a": 2.0}, DEVICE)
    preds = [{"time_ns": 4e8, "bound": "compute", "bound_probability": 0.7, "time_lo_ns": 2e8, "time_hi_ns": 8e8}]
    out = with_static_outputs([exact], preds, [False])[0]
    # 12 B and 2 FLOPs a work-item in 0.4 s: 0.03 GB/s, far below 5% of this CPU's 8 GB/s, whatever the head said
    assert out["flops_source"] == "static" and out["bound_source"] == "static"
    assert out["bound"] == "latency" and out["bound_probability"] > 0.9 and preds[0]["bound"] == "compute"
    branchy = kernels_of(str(ROOT / "examples/opencl/reduce_local.cl"))
    name = next(iter(branchy))
    unknown = make_launch(branchy, name, [1 << 16], [256], {"n": 1 << 16}, {**DEVICE, "roofline": None})
    kept = with_static_outputs([unknown], [{"time_ns": 1e4, "bound": "memory", "bound_probability": 0.6}], [False])[0]
    assert kept["bound_source"] == "model" and kept["bound"] == "memory" and kept["bound_probability"] == 0.6


def test_estimate_says_where_the_class_comes_from(monkeypatch):
    import kgraph

    monkeypatch.chdir(ROOT)
    out = kgraph.load_model().estimate("examples/opencl/saxpy.cl", kernel="saxpy", global_size=1 << 24,
                                       local_size=256, args={"n": 1 << 24, "a": 2.0}, device="h200")
    assert out["bound_source"] == "static" and out["bound"] == "memory"
    time = np.float64(out["time_ns"])  # 12 B a work-item at the predicted time against the H200's bandwidth
    assert out["bytes"] / time / 4000 > 0.05


def test_many_launches_at_once_are_each_launchs_own_answer():
    """derived_bounds (what with_static_outputs calls once for all exactly counted launches) against one launch at
    a time, over every class, intervals absent, empty and zero-wide, and two rooflines."""
    from kgraph.app.static_outputs import derived_bounds

    rng = np.random.default_rng(0)
    roofs = [ROOF, {"copy_bw_gbs": 3000.0, "fp32_gflops": 50000.0, "fp64_gflops": 25000.0}]
    cases = []
    for _ in range(200):
        t = float(10 ** rng.uniform(2, 8))
        flops = float(rng.choice([0.0, 10 ** rng.uniform(0, 12)]))
        counts = {"flops": flops, "flops_fp64": float(rng.choice([0.0, flops * rng.random()])),
                  "bytes": float(rng.choice([0.0, 10 ** rng.uniform(0, 11)]))}
        interval = [None, (t / 2, t * 3), (t, t), (0.0, t)][int(rng.integers(4))]
        cases.append((t, counts, roofs[int(rng.integers(2))], interval))
    classes, probabilities = derived_bounds([c[0] for c in cases], [c[1] for c in cases], [c[2] for c in cases],
                                            [c[3][0] if c[3] else None for c in cases],
                                            [c[3][1] if c[3] else None for c in cases])
    assert {"latency", "memory", "compute"} <= set(classes) and None in probabilities
    from kgraph.data.harness.derived import LATENCY_UTIL, bound_class, utilisations

    for (t, counts, roof, interval), cls, p in zip(cases, classes, probabilities):
        fp64 = counts["flops_fp64"]
        bw, fl = (float(u[0]) for u in utilisations([t], [counts["flops"] - fp64], [fp64], [counts["bytes"]], roof))
        assert cls == bound_class(bw, fl)
        valid = interval is not None and interval[0] > 0 and interval[1] > interval[0]
        assert (p is not None) == valid
        if valid and max(bw, fl) > 0:  # P(latency) = P(ln T > ln t*), t* = t * max(util) / 5%
            sigma = math.log(interval[1] / interval[0]) / (2 * 1.2815515655446004)
            latency = 0.5 * math.erfc(math.log(max(bw, fl) / LATENCY_UTIL) / sigma / math.sqrt(2))
            assert p == pytest.approx(latency if cls == "latency" else 1 - latency, abs=1e-12)
