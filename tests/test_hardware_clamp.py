"""A device outside the trained devices' range: the network reads its hardware vector clipped to that range, the
floors keep the device's own roofline (kgraph.models.predictor.Predictor.hardware_range), and devices inside the
range are predicted exactly as before."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kgraph
from kgraph.data.floors import FLOORS
from kgraph.models.launches import kernels_of, make_launch

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples/opencl/saxpy.cl")


@pytest.fixture(scope="module")
def model():
    return kgraph.load_model()


def _features(predictor, device):
    graphs = kernels_of(SAXPY)
    launch = make_launch(graphs, "saxpy", [1 << 24], [256], {"n": 1 << 24, "a": 2.0}, device)
    _, _, _, features, floors, _ = predictor.featurise([launch])[0]
    return features.numpy()[0], np.asarray(floors)[0]


def test_a_faster_gpu_than_any_trained_on_is_seen_clipped_with_its_own_floors(model):
    predictor = model.predictor
    h200 = predictor.devices["nvidia-h200"]
    fast = {**h200, "device_id": "gpu-x10", "roofline": {**h200["roofline"], "copy_bw_gbs": 10 * h200["roofline"]["copy_bw_gbs"],
                                                          "fp32_gflops": 10 * h200["roofline"]["fp32_gflops"]}}
    names = list(predictor.config["feature_names"])
    cols, lo, hi = predictor.hardware_range()
    hw = [i for i, n in enumerate(names) if n.startswith("hw_")]
    bw = names.index("hw_log10_copy_bw_gbs")
    clipped, fast_floors = _features(predictor, fast)
    base, h200_floors = _features(predictor, h200)
    assert clipped[bw] == pytest.approx(base[bw])  # the H200 is the fastest trained on: clipped to it
    assert np.all((clipped[hw] >= lo.min() - 1e-6) & (clipped[hw] <= hi.max() + 1e-6))
    fp32 = FLOORS.index("fp32")  # the floors are the device's own: ten times the peak, a tenth of the floor
    assert fast_floors[fp32] == pytest.approx(h200_floors[fp32] / 10, rel=1e-4)
    predictor.clamp_hardware = False
    try:
        raw, raw_floors = _features(predictor, fast)
    finally:
        predictor.clamp_hardware = True
    assert raw[bw] == pytest.approx(base[bw] + 1.0, abs=1e-5)  # log10 of ten times the bandwidth, unclipped
    assert np.array_equal(raw_floors, fast_floors)


def test_trained_devices_are_unchanged_and_every_range_is_ordered(model):
    predictor = model.predictor
    cols, lo, hi = predictor.hardware_range()
    assert len(cols) and np.all(lo <= hi)
    for device_id in predictor.trained_on:
        on, _ = _features(predictor, predictor.devices[device_id])
        predictor.clamp_hardware = False
        try:
            off, _ = _features(predictor, predictor.devices[device_id])
        finally:
            predictor.clamp_hardware = True
        assert np.array_equal(on, off), device_id


def test_estimate_warns_when_a_device_is_read_clipped(model, monkeypatch):
    monkeypatch.chdir(ROOT)
    h200 = model.predictor.devices["nvidia-h200"]
    fast = {**h200, "device_id": "gpu-x10", "roofline": {**h200["roofline"], "copy_bw_gbs": 10 * h200["roofline"]["copy_bw_gbs"]}}
    request = dict(kernel="saxpy", global_size=1 << 20, local_size=256, args={"n": 1 << 20, "a": 2.0})
    warned = model.estimate("examples/opencl/saxpy.cl", device=fast, **request)["warnings"]
    assert any("gpu-x10 lies outside the trained devices' range in hw_log10_copy_bw_gbs" in w for w in warned)
    assert not any("outside the trained" in w for w in model.estimate("examples/opencl/saxpy.cl", device="h200",
                                                                      **request)["warnings"])
