"""Fixtures shared by several test files."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pocl_context():
    """``(pyopencl, context)`` on the first OpenCL device (PoCL on CI); skips without pyopencl or a device."""
    cl = pytest.importorskip("pyopencl")
    try:
        device = next(d for p in cl.get_platforms() for d in p.get_devices())
    except (StopIteration, cl.Error):
        pytest.skip("no OpenCL device")
    return cl, cl.Context([device])


@pytest.fixture(scope="module")
def cpu_queue():
    """``(context, queue)`` on the first CPU OpenCL device (PoCL); skips without pyopencl or such a device."""
    cl = pytest.importorskip("pyopencl")
    try:
        devices = [d for p in cl.get_platforms() for d in p.get_devices() if d.type & cl.device_type.CPU]
    except cl.Error:
        devices = []
    if not devices:
        pytest.skip("no CPU OpenCL device (install pocl-binary-distribution)")
    ctx = cl.Context([devices[0]])
    return ctx, cl.CommandQueue(ctx)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A default-model directory converted from a Lightning-format checkpoint of a small untrained model
    (trained_on: ci-tiny's device)."""
    from kgraph.data.features import feature_names
    from kgraph.models.kgraph_model import ModelConfig
    from kgraph.models.lightning_module import KGraphLightningModule
    from kgraph.models.predictor import from_checkpoint

    arch = ModelConfig(use_tokens=False)
    arch.graph.hidden, arch.launch.hidden, arch.fusion.hidden, arch.head.hidden = 16, 16, 32, 16
    torch.manual_seed(0)
    module = KGraphLightningModule(arch, feature_names=feature_names())
    d = tmp_path_factory.mktemp("model")
    torch.save({"state_dict": module.state_dict(), "global_step": 0,
                "hyper_parameters": {"arch": asdict(arch), "feature_names": feature_names()},
                "datamodule_hyper_parameters": {"datasets": [str(ROOT / "data/datasets/ci-tiny")]}}, d / "x.ckpt")
    return from_checkpoint(d / "x.ckpt", d / "default")


@pytest.fixture(scope="session")
def ctx():
    """The instrumented runs' OpenCL context (``kgraph.data.instrumented.default_context``); skips without one."""
    from kgraph.data.instrumented import default_context
    from kgraph.errors import MeasurementError

    try:
        return default_context()
    except MeasurementError as exc:  # pragma: no cover
        pytest.skip(str(exc))
