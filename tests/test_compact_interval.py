"""Calibrated time intervals of the compact head (issue 12 §4): pinball-trained ends, the conformal
margin, coverage on unseen groups, and the same interval from torch, ONNX and C."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
import torch

from kgraph.data.targets import TIME_INTERVAL
from kgraph.models.compact import CompactConfig, CompactHead, fit_compact, from_checkpoint, to_checkpoint
from kgraph.models.compact_interval import (conformal_margin, cross_fit_margin, interval_metrics, scores,
                                            set_margin)
from kgraph.parsers.errors import ModelError

LAUNCH = ["log_n", "log_global", "log_local"]
DEVICE = ["log_cu", "log_bw", "log_gflops"]


def synthetic(n: int, groups: int, seed: int):
    """ln(time) = a linear law of the launch + a per-group offset (what a kernel adds that its launch does
    not say; the group's random 2-d "code embedding" lets a head memorise it for groups it trained on,
    not guess it for new ones) + noise whose spread grows with the first launch feature."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2 + len(LAUNCH) + len(DEVICE), generator=g)
    group = torch.randint(0, groups, (n,), generator=g)
    x[:, :2] = torch.randn(groups, 2, generator=g)[group]
    offset = torch.randn(groups, generator=g)[group] * 0.5
    noise = torch.randn(n, generator=g) * (0.05 + 0.15 * torch.sigmoid(x[:, 2]))
    y = torch.zeros(n, 5)
    y[:, 0] = 8 + 1.5 * x[:, 2] - x[:, 3] + offset + noise
    y[:, 1:] = y[:, :1] * 0.5
    return x, y, group.numpy()


def make(seed=0):
    torch.manual_seed(seed)
    return CompactHead(CompactConfig(2, LAUNCH, DEVICE, "small", interval=True))


def fit(head, x, y, bound):
    fit_compact(head, x, y, bound, epochs=25, batch_size=128)


def test_conformal_margin_is_the_finite_sample_quantile():
    s = np.arange(1, 10, dtype=float)  # 9 scores: ceil(10 * 0.8) = 8th smallest
    assert conformal_margin(s, 0.8) == 8.0
    assert conformal_margin(np.array([-0.5]), 0.8) == -0.5
    assert TIME_INTERVAL.quantiles == pytest.approx((0.1, 0.9)) and TIME_INTERVAL.keys == ("time_lo_ns", "time_hi_ns")


def test_cross_fitted_margin_covers_unseen_groups():
    x, y, group = synthetic(3000, 150, seed=0)
    train = group < 100
    xt, yt = x[torch.as_tensor(train)], y[torch.as_tensor(train)]
    margin, s = cross_fit_margin(make, fit, xt, yt, None, group[train], folds=4)
    head = make()
    fit(head, xt, yt, None)
    held = torch.as_tensor(~train)  # 50 groups never seen
    with torch.no_grad():
        raw = head.log_time_interval(x[held], margin=False).numpy()
    set_margin(head, margin)
    with torch.no_grad():
        ends = head.log_time_interval(x[held]).numpy()
    before = interval_metrics(raw, y[held, 0].numpy())
    after = interval_metrics(ends, y[held, 0].numpy())
    assert len(s) == int(train.sum()) and margin > 0  # unseen offsets: the training quantiles are too narrow
    assert before["coverage"] < after["coverage"] - 0.05, (before, after)
    assert 0.72 <= after["coverage"] <= 0.92, after
    assert (ends[:, 0] <= ends[:, 1]).all() and after["median_width"] > 1.0
    point = head(x[held])[0][:, 0].detach().numpy()
    assert ((ends[:, 0] <= point + 1e-6) & (point <= ends[:, 1] + 1e-6)).all()


def test_scores_and_a_negative_margin_never_cross_the_point():
    x, y, _ = synthetic(500, 5, seed=1)
    head = make()
    fit(head, x, y, None)
    s = scores(head, x, y[:, 0])
    assert s.shape == (500,) and np.isfinite(s).all()
    set_margin(head, -50.0)  # far narrower than the spreads: both ends collapse onto the point
    with torch.no_grad():
        ends = head.log_time_interval(x)
        point = head(x)[0][:, 0]
    assert torch.allclose(ends[:, 0], point) and torch.allclose(ends[:, 1], point)


def test_head_without_interval_refuses_and_old_checkpoints_load(tmp_path):
    head = CompactHead(CompactConfig(2, LAUNCH, DEVICE, "tiny"))
    with pytest.raises(ModelError, match="no interval outputs"):
        head.log_time_interval(torch.zeros(1, head.config.in_dim))
    with_interval = make()
    set_margin(with_interval, 0.25)
    path = to_checkpoint(with_interval, tmp_path / "h.pt", {"k": torch.zeros(2)}, {"d": torch.zeros(3)})
    loaded = from_checkpoint(path).head
    assert loaded.config.interval and float(loaded.interval_margin) == 0.25
    shipped = from_checkpoint("models/default_compact/compact.pt").head
    assert shipped.config.out_dim == 5 + 3 + (2 if shipped.config.interval else 0)


def test_onnx_interval_matches_torch(tmp_path):
    pytest.importorskip("onnxruntime")
    from kgraph.models.export import check_onnx, to_onnx

    x, y, _ = synthetic(400, 5, seed=2)
    head = make()
    fit(head, x, y, None)
    set_margin(head, 0.3)
    path = to_onnx(head, tmp_path / "m.onnx")
    assert check_onnx(head, path, x[:37]) <= 1e-5
    set_margin(head, -0.2)
    with pytest.raises(ModelError, match="time interval differs"):
        check_onnx(head, path, x[:37])


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_interval_matches_torch_and_is_nan_without_one(tmp_path):
    from kgraph.models.export import to_c
    from kgraph.models.export.c_driver import INTERVAL_COLUMNS, build_driver, predict_c

    x, y, _ = synthetic(400, 5, seed=3)
    head = make()
    fit(head, x, y, None)
    set_margin(head, 0.3)
    table = {"a": x[0, :2], "b": x[1, :2]}
    devices = {"d0": x[0, 5:], "d1": x[1, 5:]}
    to_c(head, tmp_path / "i", table, devices)
    launch = x[:6, 2:5].double().numpy()
    kernels, devs = ["a", "b", "a", "b", "a", "b"], [0, 1, 1, 0, 0, 1]
    got = predict_c(build_driver(tmp_path / "i"), kernels, devs, launch)
    rows = torch.stack([torch.cat([table[k], x[i, 2:5], list(devices.values())[d]])
                        for i, (k, d) in enumerate(zip(kernels, devs))])
    with torch.no_grad():
        ends = head.log_time_interval(rows).double().numpy()
    np.testing.assert_allclose(np.log(got[:, INTERVAL_COLUMNS]), ends, rtol=0, atol=2e-4)
    plain = CompactHead(CompactConfig(2, LAUNCH, DEVICE, "tiny")).eval()
    to_c(plain, tmp_path / "p", table, devices)
    got = predict_c(build_driver(tmp_path / "p"), kernels, devs, launch)
    assert np.isnan(got[:, INTERVAL_COLUMNS]).all() and np.isfinite(got[:, 1]).all()
    assert math.isfinite(float(head.interval_margin))


def test_estimate_carries_the_interval_and_keeps_it_above_the_floor(tmp_path, capsys):
    """The shipped model directory's interval.pt gives every estimate an interval around the full model's
    time (lower end at or above the physical floor); without interval.pt the ends are None; a compact
    checkpoint that is not a code-free interval head is refused by name."""
    import shutil as sh

    from kgraph.app.api import load_model
    from kgraph.app.cli.main import main
    from kgraph.models.shipped import DEFAULT_DIR

    saxpy = "examples/opencl/saxpy.cl"
    records = load_model().estimate_many([
        {"file": saxpy, "kernel": "saxpy", "global": [g], "args": {"n": g, "a": 2.0}, "device": "h200"}
        for g in (256, 1 << 16, 1 << 24)])
    for r in records:
        assert r["floor_ns"] <= r["time_lo_ns"] <= r["time_ns"] <= r["time_hi_ns"], r
        assert r["time_hi_ns"] / r["time_lo_ns"] > 1.05
    assert main(["estimate", saxpy, "--kernel", "saxpy", "--global", "65536", "--arg", "n=65536", "--arg", "a=2",
                 "--device", "h200"]) == 0
    assert "  interval   " in capsys.readouterr().out
    bare = tmp_path / "bare"
    sh.copytree(DEFAULT_DIR, bare, ignore=sh.ignore_patterns("interval.pt"))
    r = load_model(bare).estimate(saxpy, "saxpy", [4096], args={"n": 4096, "a": 2.0}, device="h200")
    assert r["time_lo_ns"] is None and r["time_hi_ns"] is None
    wrong = tmp_path / "wrong"
    sh.copytree(bare, wrong)
    head = make()  # interval outputs but a code embedding: not what a model directory's interval.pt is
    to_checkpoint(head, wrong / "interval.pt", {"k": torch.zeros(2)}, {"d": torch.zeros(3)})
    with pytest.raises(ModelError, match="interval.pt: not an interval head"):
        load_model(wrong).estimate(saxpy, "saxpy", [4096], args={"n": 4096, "a": 2.0}, device="h200")


def test_a_feature_constant_in_training_is_not_amplified():
    """A feature that never varies in training (static_known = 1 on every training row) gets scale 1 and no
    weight: a test row where it differs gets the same prediction, neither 1e6 x its weight nor a random one."""
    x, y, _ = synthetic(300, 5, seed=4)
    x[:, 2 + len(LAUNCH)] = 1.0  # constant in training
    head = make()
    head.set_normalization(x, y)
    assert float(head.feature_std[2 + len(LAUNCH)]) == 1.0 and float(head.feature_std[2]) != 1.0
    fit(head, x, y, None)
    odd = x[:5].clone()
    odd[:, 2 + len(LAUNCH)] = 0.0
    with torch.no_grad():
        shift = (head(odd)[0][:, 0] - head(x[:5])[0][:, 0]).abs().max()
    # no evidence, no effect: fit_compact zeroes the first-layer weights of inputs constant in training
    # (before, they kept their random initialisation and a held-out family that varies them, the only one
    # with atomics, was over-predicted by up to 5,300x)
    assert float(shift) == 0.0 and not head.layers[0].weight[:, 2 + len(LAUNCH)].any()


def test_offsets_without_the_margin_are_the_spreads_alone():
    """interval_offsets(margin=False) gives the learned spreads, which another model's errors calibrate
    (benchmarks/full_interval_margin.py): with a margin m the ends move out by exactly m where nothing clamps."""
    x, y, _ = synthetic(200, 5, seed=5)
    head = make()
    fit(head, x, y, None)
    set_margin(head, 0.25)
    with torch.no_grad():
        bare, full = head.interval_offsets(x, margin=False), head.interval_offsets(x)
    assert (bare[:, 0] <= 0).all() and (bare[:, 1] >= 0).all()
    assert torch.allclose(full - bare, torch.tensor([-0.25, 0.25]).expand_as(full), atol=1e-6)
