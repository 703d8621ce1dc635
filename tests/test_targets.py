"""One targets table (kgraph.data.targets) drives Python, ONNX and C; C's natural units equal Python's.

The C comparison exports the shipped compact head (``kgraph.models.shipped.COMPACT_CKPT``) with its
code table and every device, compiles it with the driver and feeds C and torch the same rows: probe
rows over every kernel × every device (``kgraph.models.export.verify.probe_rows``) and, where the
datasets are in the source tree, measured launches of every exported device featurised by
``kgraph.data.features.to_launch_features`` (among them the issue's gemm_tiled.t16.nn.fp32 at 2048³
on the H200). Python's answer is the head evaluated in torch, its log targets inverted through the
table (``Target.inverse_torch``).
"""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
import torch

from kgraph.data import targets
from kgraph.data.targets import BOUND_CLASSES, LOG_TARGETS, NATURAL_KEYS, REGRESSION_TARGETS, TARGET, TARGETS

# C vs torch on the log targets: the C head runs the folded layers (normalisation folded into the first
# layer, code/device shares precomputed) in float32, torch the unfolded ones; the float32 cancellation
# of the folding gives up to ~1.5e-5 (docs/RUNTIME.md). Natural units inherit it as a relative error of
# the quantity inside the log (x for ln(x), 1 + scale * x for ln(1 + scale * x)).
LOG_TOL = 3e-5
ISSUE_KERNEL, ISSUE_SIZES, ISSUE_DEVICE = "gemm_tiled.t16.nn.fp32", {"M": 2048, "N": 2048, "K": 2048}, "nvidia-h200"


def test_one_table_everywhere():
    from kgraph.data import features
    from kgraph.data.harness import columns, derived
    from kgraph.models import compact, predictions
    from kgraph.models.heads import Prediction

    assert REGRESSION_TARGETS == ("time", "bandwidth", "footprint", "flops", "bytes")
    assert NATURAL_KEYS == ("time_ns", "bandwidth_gbs", "footprint_bytes", "flops", "bytes")
    assert LOG_TARGETS == tuple(f"log_{t}" for t in REGRESSION_TARGETS) == Prediction._fields[:len(TARGETS)]
    # the other modules re-export the table, they do not define their own
    assert features.REGRESSION_TARGETS is REGRESSION_TARGETS and features.BOUND_CLASSES is BOUND_CLASSES
    assert compact.LOG_TARGETS is LOG_TARGETS and compact.BOUND_CLASSES is BOUND_CLASSES
    assert predictions.BOUND_CLASSES is BOUND_CLASSES and features.to_natural is targets.to_natural
    # the dataset writer keeps its own copy (kgraph.data.harness); it must stay equal
    assert columns.BOUND_CLASSES == BOUND_CLASSES
    assert {derived.bound_class(0.5, 0.1), derived.bound_class(0.1, 0.5), derived.bound_class(0.0, 0.0)} \
        == set(BOUND_CLASSES)
    assert [t.transform_text for t in TARGETS] == [
        "ln(time_ns)", "ln(1 + 1000 * bandwidth_gbs)", "ln(1 + footprint_bytes)", "ln(1 + flops)", "ln(1 + bytes)"]
    assert [t.c_inverse("y") for t in TARGETS] == [
        "exp(y)", "fmax(expm1(y), 0.0) / 1000.0", "fmax(expm1(y), 0.0)", "fmax(expm1(y), 0.0)", "fmax(expm1(y), 0.0)"]


def test_transforms_round_trip_numpy_and_torch():
    x = np.array([1e-3, 0.5, 1.0, 1330.7, 3.3e6, 7.3e10])
    for t in TARGETS:
        y = t.transform(x)
        np.testing.assert_allclose(t.inverse(y), x, rtol=1e-12)
        np.testing.assert_allclose(t.inverse_torch(torch.from_numpy(y)).numpy(), x, rtol=1e-12)
        np.testing.assert_allclose(t.transform_torch(torch.from_numpy(x)).numpy(), y, rtol=1e-14)
        np.testing.assert_allclose(targets.to_log(t.name, targets.to_natural(t.name, y)), y, rtol=1e-14)
    # ln(1 + MB/s): the issue's 1330.7 GB/s
    assert TARGET["bandwidth"].transform(1330.7) == pytest.approx(np.log1p(1330.7e3), rel=1e-15)
    assert TARGET["bandwidth"].inverse(np.log1p(1330.7e3)) == pytest.approx(1330.7, rel=1e-12)
    assert TARGET["time"].transform(0.0) == -np.inf and TARGET["flops"].inverse(0.0) == 0.0
    # a head's output below 0 is a count of 0, never a negative count (issue 15: VectorAdd's -0.116 FLOPs)
    for name in ("bandwidth", "footprint", "flops", "bytes"):
        assert TARGET[name].inverse(np.array([-0.2]))[0] == 0.0
        assert float(TARGET[name].inverse_torch(torch.tensor([-0.2]))[0]) == 0.0


def test_to_targets_uses_the_table():
    from kgraph.data.features import to_targets

    rows = pd.DataFrame({"median_time_ns": [2500.0, -1.0], "achieved_bw_gbs": [1330.7, -1.0],
                         "footprint_bytes": [4096, -1], "flops_fp32": [1000, 10], "flops_fp64": [24, -1],
                         "global_load_bytes": [3000, -1], "global_store_bytes": [1000, 5],
                         "bound": ["compute", "nonsense"]})
    y, bound = to_targets(rows)
    natural = targets.natural_outputs(y.astype(np.float64))
    assert list(natural) == list(NATURAL_KEYS)
    np.testing.assert_allclose([natural[k][0] for k in NATURAL_KEYS], [2500.0, 1330.7, 4096, 1024, 4000], rtol=1e-6)
    assert np.isnan(y[1, [0, 1, 2, 4]]).all() and natural["flops"][1] == pytest.approx(10.0, rel=1e-6)
    assert bound.tolist() == [BOUND_CLASSES.index("compute"), -1]


def test_onnx_metadata_is_the_table(tmp_path):
    pytest.importorskip("onnx")
    import onnx

    from kgraph.models.compact import CompactConfig, CompactHead
    from kgraph.models.export import to_onnx

    head = CompactHead(CompactConfig(code_dim=2, launch_names=["a"], device_names=["b"], size="tiny")).eval()
    meta = {p.key: p.value for p in onnx.load(to_onnx(head, tmp_path / "m.onnx")).metadata_props}
    assert {k: meta[k] for k in targets.metadata()} == targets.metadata()
    assert meta["log_targets"].split(",") == list(LOG_TARGETS)
    assert meta["target_keys"].split(",") == list(NATURAL_KEYS)
    assert meta["bound_classes"].split(",") == list(BOUND_CLASSES)


# ----------------------------------------------------------------------------- C against Python
def _dataset_rows(bundle) -> tuple[list[str], list[int], np.ndarray, pd.DataFrame]:
    """Measured launches of every exported device that has a dataset here (≤ 300 per device, 60
    kernels shared by all of them plus the issue's kernel), featurised by Python."""
    from kgraph.data import datasets_dir
    from kgraph.data.datamodule import read_dataset
    from kgraph.data.features import feature_names, to_launch_features

    devices = list(bundle.devices)
    found = [d for d in devices if (datasets_dir() / d / "device.json").is_file()]
    if not found:
        return [], [], np.zeros((0, len(bundle.head.config.launch_names))), pd.DataFrame()
    tables, sources, descriptors = [], [], {}
    for dev in found:
        launches, src, descriptor = read_dataset(datasets_dir() / dev)
        tables.append(launches)
        sources.append(src)
        descriptors[dev] = descriptor
    common = sorted(set.intersection(*(set(t.kernel_id) for t in tables)) & set(bundle.code_table))
    rng = np.random.default_rng(0)
    pick = set(rng.choice(common, min(60, len(common)), replace=False).tolist()) | {ISSUE_KERNEL}
    rows = []
    for dev, table in zip(found, tables):
        sub = table[table.kernel_id.isin(pick)]
        issue = sub[(sub.kernel_id == ISSUE_KERNEL) & sub.sizes.map(lambda s: json.loads(s) == ISSUE_SIZES)]
        rows += [issue, sub.drop(issue.index).sample(n=min(len(sub) - len(issue), 300), random_state=0)]
    rows = pd.concat(rows, ignore_index=True)
    features = to_launch_features(rows, pd.concat(sources).drop_duplicates("source_id"), descriptors)
    names = feature_names()  # the head's launch columns, picked by name
    launch = features[:, [names.index(n) for n in bundle.head.config.launch_names]].astype(np.float64)
    keep = np.isfinite(launch).all(axis=1)
    rows = rows[keep].reset_index(drop=True)
    return list(rows.kernel_id), [devices.index(d) for d in rows.device_id], launch[keep], rows


@pytest.fixture(scope="module")
def shipped_export(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    from kgraph.models.compact import from_checkpoint
    from kgraph.models.export import to_c
    from kgraph.models.export.c_driver import build_driver
    from kgraph.models.shipped import COMPACT_CKPT

    bundle = from_checkpoint(COMPACT_CKPT)
    out = tmp_path_factory.mktemp("shipped_c")
    to_c(bundle.head, out, bundle.code_table, bundle.devices)
    return bundle, out, build_driver(out)


def test_c_natural_units_equal_python(shipped_export):
    from kgraph.models.export.c_driver import NATURAL_COLUMNS, predict_c
    from kgraph.models.export.verify import probe_rows

    bundle, _, driver = shipped_export
    devices = list(bundle.devices)
    kernels, devs, probe, _ = probe_rows(bundle, 0)  # every kernel x every device
    d_kernels, d_devs, d_launch, measured = _dataset_rows(bundle)
    kernels, devs = list(kernels) + d_kernels, list(devs) + d_devs
    launch = np.concatenate([probe.double().numpy(), d_launch])
    assert len(kernels) >= 1000 and set(devs) == set(range(len(devices)))

    x = torch.cat([torch.stack([bundle.code_table[k] for k in kernels]), torch.tensor(launch, dtype=torch.float32),
                   torch.stack([bundle.devices[devices[d]] for d in devs])], dim=1)
    with torch.no_grad():
        log_py, logits = bundle.head(x)
    python = {t.key: t.inverse_torch(log_py[:, j].double()).numpy() for j, t in enumerate(TARGETS)}
    out = predict_c(driver, kernels, devs, launch)
    assert (out[:, 0] == 0).all()
    c_log, c_nat = out[:, 2:2 + len(TARGETS)], out[:, NATURAL_COLUMNS]

    for j, t in enumerate(TARGETS):
        c, p = c_nat[:, j], python[t.key]
        # C's own inverse is exactly the table's (the C log targets print exactly: %.9g of a float)
        np.testing.assert_allclose(c, t.inverse(c_log[:, j].astype(np.float32).astype(np.float64)), rtol=1e-13,
                                   err_msg=t.key)
        # and C's natural value equals Python's up to float32 rounding of the head
        inside = np.abs(p) + (1.0 / t.scale if t.log1p else 0.0)  # the quantity inside the log, / scale
        err = np.abs(c - p) / inside
        assert err.max() <= LOG_TOL, f"{t.key}: C differs from Python by {err.max():.3g} relative"
        big = np.abs(p) * t.scale >= 1.0
        assert (np.abs(c - p)[big] / np.abs(p[big])).max() <= LOG_TOL, t.key
    np.testing.assert_allclose(out[:, 1], c_nat[:, 0] * 1e-3, rtol=1e-8)  # time_us (printed %.9g)
    assert (out[:, 2 + len(TARGETS)] == logits.argmax(-1).numpy()).all()  # bound class identical
    np.testing.assert_allclose(out[:, 3 + len(TARGETS):NATURAL_COLUMNS.start],
                               torch.softmax(logits.double(), -1).numpy(), atol=1e-4)

    if len(measured):  # the units are the measurements' units (a unit slip is a factor 1000, not 2)
        n = len(kernels) - len(measured)
        truth = {"time_ns": measured.median_time_ns, "bandwidth_gbs": measured.achieved_bw_gbs,
                 "footprint_bytes": measured.footprint_bytes,
                 "flops": measured.flops_fp32 + measured.flops_fp64.clip(lower=0),
                 "bytes": measured.global_load_bytes + measured.global_store_bytes}
        for j, t in enumerate(TARGETS):
            y, c = truth[t.key].to_numpy(np.float64), c_nat[n:, j]
            ok = (y > 0) & (c > 0)
            assert ok.sum() > 100 and np.median(np.abs(np.log(c[ok] / y[ok]))) < np.log(2.0), t.key
        issue = np.flatnonzero((measured.kernel_id == ISSUE_KERNEL) & (measured.device_id == ISSUE_DEVICE)
                               & measured.sizes.map(lambda s: json.loads(s) == ISSUE_SIZES))
        if len(issue):  # the issue: C said 1,330,653.9 GB/s where Python says 1330.7
            i = n + int(issue[0])
            assert c_nat[i, 1] == pytest.approx(python["bandwidth_gbs"][i], rel=LOG_TOL)
            assert 500 < c_nat[i, 1] < 5000


def test_header_example_compiles_with_a_real_device(shipped_export, tmp_path):
    bundle, export_dir, _ = shipped_export
    header = (export_dir / "kgraph_model.h").read_text()
    start = header.index("   Example: ")
    comment = header[start:header.index("*/", start)]
    code = comment.split("\n\n", 1)[1]
    devices = list(bundle.devices)
    for i, d in enumerate(devices):
        assert f"{i} = {d}" in header
    assert f'kgraph_device_index("{devices[0]}");  // 0' in code
    program = tmp_path / "example.c"
    program.write_text(f'#include <stdio.h>\n#include "kgraph_model.h"\nint main(void) {{\n{code}  return 0;\n}}\n')
    binary = tmp_path / "example"
    built = subprocess.run(["gcc", "-O1", "-std=c99", "-Wall", "-I", str(export_dir), str(program),
                            str(export_dir / "kgraph_model.c"), "-o", str(binary), "-lm"], capture_output=True, text=True)
    assert built.returncode == 0 and "example.c" not in built.stderr, built.stderr
    printed = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout
    assert " ns, " in printed and " GB/s, bound " in printed  # the prediction ran: KGRAPH_OK
