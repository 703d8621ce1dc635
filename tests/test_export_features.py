"""The C kgraph_features helper builds the same vector as data/features.py (launch + static parts)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from kgraph.data.features import to_launch_features
from kgraph.data.static_counts import KNOWN_ASSUMED
from kgraph.data.corpus import tile_kernel_files
from kgraph.models.compact import CompactConfig, CompactHead, to_compact_inputs
from kgraph.models.export import to_c
from kgraph.models.export.c_driver import build_driver, features_c, predict_c
from kgraph.models.export.features_c import to_features_c

KERNELS = tile_kernel_files()[0].parent
DEVICE = {"device_id": "pocl-cpu", "type": "CPU", "compute_units": 12, "max_clock_mhz": 3000,
          "global_mem_bytes": 2 ** 34, "local_mem_bytes": 2 ** 16, "max_work_group_size": 4096,
          "global_cache_bytes": 2 ** 20,
          "roofline": {"copy_bw_gbs": 20.0, "fp32_gflops": 300.0, "fp64_gflops": 150.0,
                       "local_bw_gbs": 100.0, "launch_overhead_us": 8.0}}
# (kernel, dims, global, local, args JSON in parameter order)
LAUNCHES = [("tile_gemm", 2, (64, 64, 1), (8, 8, 1), {"n": 64, "alpha": -1.0}),
            ("tile_gemm", 2, (256, 256, 1), (8, 8, 1), {"n": 256, "alpha": 1.0}),
            ("tile_syrk", 2, (128, 128, 1), (8, 8, 1), {"n": 128}),
            ("tile_trsm", 1, (96, 1, 1), (32, 1, 1), {"n": 96}),
            ("tile_potrf", 1, (32, 1, 1), (32, 1, 1), {"n": 32})]


def _launch_features():
    """(kernel names, sources for to_features_c, today's launch features of LAUNCHES)."""
    names = sorted({k for k, *_ in LAUNCHES})
    sources = {k: ((KERNELS / f"{k}.cl").read_text(), "opencl") for k in names}
    launches = pd.DataFrame([{"device_id": "pocl-cpu", "source_id": k, "kernel_name": k, "dims": d,
                              "g0": g[0], "g1": g[1], "g2": g[2], "l0": l[0], "l1": l[1], "l2": l[2],
                              "args": json.dumps(a)} for k, d, g, l, a in LAUNCHES])
    src_df = pd.DataFrame([{"source_id": k, "lang": "opencl", "source": s} for k, (s, _) in sources.items()])
    return names, sources, to_launch_features(launches, src_df, {"pocl-cpu": DEVICE})


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_features_equal_python(tmp_path):
    names, sources, features = _launch_features()
    py = to_compact_inputs(features).numpy()

    cfg = CompactConfig.for_dataset_features(code_dim=4, size="tiny")
    torch.manual_seed(0)
    head = CompactHead(cfg).eval()
    n_launch = len(cfg.launch_names)
    dev = torch.tensor(py[0, n_launch:])
    table = {k: torch.randn(4) for k in names}
    to_c(head, tmp_path, table, {"pocl-cpu": dev}, to_features_c(names, sources, cfg.device_names))
    driver = build_driver(tmp_path)
    got = features_c(driver, [(k, 0, d, g, l, list(a.values())) for k, d, g, l, a in LAUNCHES])
    assert (got[:, 0] == 0).all()
    assert py[:, cfg.launch_names.index("static_known")].tolist() == [1.0] * len(LAUNCHES)
    np.testing.assert_allclose(got[:, 1:], py[:, :n_launch], rtol=1e-5, atol=1e-5)
    # and the prediction from C features equals torch on Python features
    pred = predict_c(driver, [k for k, *_ in LAUNCHES], [0] * len(LAUNCHES), got[:, 1:])
    x = torch.cat([torch.stack([table[k] for k, *_ in LAUNCHES]), torch.tensor(py)], dim=1)
    with torch.no_grad():
        t, _ = head(x)
    np.testing.assert_allclose(pred[:, 2:7], t.numpy(), rtol=1e-4, atol=1e-4)


def one_kernel_c_features(tmp_path, name: str, src: str, launches: list) -> tuple:
    """(Python compact inputs Float[N, F], C ``kgraph_features`` rows Float[N, 1 + L], the head's config) of one
    kernel's ``launches`` ((kernel, dims, global, local, args) as LAUNCHES), the C side built from a code-free head."""
    rows = pd.DataFrame([{"device_id": "pocl-cpu", "source_id": name, "kernel_name": k, "dims": d, "g0": g[0],
                          "g1": g[1], "g2": g[2], "l0": l[0], "l1": l[1], "l2": l[2], "args": json.dumps(a)}
                         for k, d, g, l, a in launches])
    features = to_launch_features(rows, pd.DataFrame([{"source_id": name, "lang": "opencl", "source": src}]),
                                  {"pocl-cpu": DEVICE})
    cfg = CompactConfig.for_dataset_features(code_dim=0, size="tiny")
    py = to_compact_inputs(features).numpy()
    n_launch = len(cfg.launch_names)
    to_c(CompactHead(cfg).eval(), tmp_path, {name: torch.zeros(0)}, {"pocl-cpu": torch.tensor(py[0, n_launch:])},
         to_features_c([name], {name: (src, "opencl")}, cfg.device_names))
    got = features_c(build_driver(tmp_path), [(k, 0, d, g, l, list(a.values())) for k, d, g, l, a in launches])
    return py, got, cfg


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_c_features_of_a_loop_of_unknown_trip_count_equal_python(tmp_path):
    """A loop whose trip count depends on data: both take its assumed count (``kgraph.analysis.trips``) and
    ``static_known`` is ``KNOWN_ASSUMED``."""
    src = """__kernel void chase(__global const int *next, __global float *out, int n)
    {
        int i = get_global_id(0);
        int steps = 0;
        for (int p = next[i]; p >= 0 && steps < n; p = next[p])
            steps++;
        out[i] = (float)steps * (float)(i % 7);
    }
    """
    launches = [("chase", 1, (1024, 1, 1), (64, 1, 1), {"n": 1024}), ("chase", 1, (4096, 1, 1), (128, 1, 1), {"n": 30})]
    py, got, cfg = one_kernel_c_features(tmp_path, "chase", src, launches)
    assert py[:, cfg.launch_names.index("static_known")].tolist() == [KNOWN_ASSUMED, KNOWN_ASSUMED]
    assert (py[:, cfg.launch_names.index("static_int_ops")] > 0).all()  # one iteration of the loop's
    assert (py[:, cfg.launch_names.index("static_int_divmod")] > 0).all()  # outside the loop
    assert (got[:, 0] == 0).all()
    np.testing.assert_allclose(got[:, 1:], py[:, :len(cfg.launch_names)], rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
def test_a_head_of_another_layout_gets_its_own_features_by_name(tmp_path):
    """A head made before a count key was added (or reading fewer features, in another order) gets exactly its
    own inputs from C and from Python, picked by name from today's layout."""
    names, sources, features = _launch_features()
    today = CompactConfig.for_dataset_features(code_dim=0, size="tiny")
    older = [n for n in today.launch_names if "int_divmod" not in n][::-1]  # fewer, and reversed
    cfg = CompactConfig(0, older, today.device_names, "tiny")
    py = to_compact_inputs(features, config=cfg).numpy()
    full = to_compact_inputs(features).numpy()  # today's layout
    for j, name in enumerate(older):
        np.testing.assert_array_equal(py[:, j], full[:, today.launch_names.index(name)])
    head = CompactHead(cfg).eval()
    dev = torch.tensor(py[0, len(older):])
    to_c(head, tmp_path, {k: torch.zeros(0) for k in names}, {"pocl-cpu": dev},
         to_features_c(names, sources, cfg.device_names, launch_names=cfg.launch_names))
    got = features_c(build_driver(tmp_path), [(k, 0, d, g, l, list(a.values())) for k, d, g, l, a in LAUNCHES])
    assert (got[:, 0] == 0).all() and got.shape[1] == 1 + len(older)
    np.testing.assert_allclose(got[:, 1:], py[:, :len(older)], rtol=1e-5, atol=1e-5)


def test_a_head_reading_a_feature_this_kgraph_does_not_make_is_refused():
    from kgraph.errors import ModelError

    today = CompactConfig.for_dataset_features(code_dim=0, size="tiny")
    cfg = CompactConfig(0, [*today.launch_names, "static_teleports"], today.device_names, "tiny")
    with pytest.raises(ModelError, match="static_teleports"):
        to_compact_inputs(np.zeros((1, 80), np.float32), config=cfg)
    with pytest.raises(ModelError, match="static_teleports"):
        to_features_c(["tile_gemm"], {}, cfg.device_names, launch_names=cfg.launch_names)
