"""Warp-uniform atomics: an atomic whose address every lane of a warp shares is applied once per warp on a GPU
(``kgraph.analysis.atomics.warp_uniform``, ``kgraph.analysis.traffic.warp_atomic_depth``), read by models whose
``config.json`` says ``warp_atomics``."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kgraph
from kgraph.analysis.atomics import warp_uniform
from kgraph.analysis.traffic import TRAFFIC_KEYS, traffic_exprs, warp_atomic_depth
from kgraph.data.features import feature_names, to_launch_features

REPO = Path(__file__).resolve().parents[1]
# a counter (pointer), slot 0, a group's slot, a slot per lane, a slot from a loop variable, a loaded slot,
# a counter bumped in a loop, a counter bumped by one lane of a group
SOURCE = r'''
__kernel void k(__global const int *x, __global int *c, const int B, const int n) {
  int i = get_global_id(0);
  if (x[i] > 0) atomic_inc(c);
  atomic_add(&c[0], 1);
  atomic_add(&c[get_group_id(0) + B], 1);
  atomic_add(&c[i % B], 1);
  for (int k = 0; k < n; ++k) atomic_add(&c[k], 1);
  atomic_add(&c[x[i]], 1);
  for (int k = 0; k < n; ++k) atomic_add(&c[B], 2);
  if (get_local_id(0) == 0) atomic_add(&c[1], 3);
}
'''
ENV = {"n": 10, "B": 32, "gsz0": 4096, "gsz1": 1, "gsz2": 1, "lsz0": 256, "lsz1": 1, "lsz2": 1, "ngrp0": 16}


def _atomics():
    a = kgraph.from_source(SOURCE, "opencl")[0].analysis
    return a, [x for x in a.accesses if x.kind == "atomic"]


def _value(expr) -> float:
    return float(expr.subs({s: ENV[s.name] for s in expr.free_symbols}))


def test_which_sites_are_uniform_across_a_warp():
    _, atomic = _atomics()
    assert [warp_uniform(x.index_expr, x.context) for x in atomic] == [True, True, True, False, False, False, True,
                                                                        True]


def test_a_warp_applies_a_uniform_site_once():
    a, _ = _atomics()
    lanes = _value(dict(zip(TRAFFIC_KEYS, traffic_exprs(a)))["global_atomic_depth"]) * 4096
    warps = _value(warp_atomic_depth(a)) * 4096
    # per lane: 4096/2 on c (a branch on data: 1/2), 4096 on c[0], 4096/16 per group slot, 4096/32 per bin,
    # 10 iterations over 10 slots (4096 each), the loaded slot nothing, 10 * 4096 on c[B], 16 on c[1]
    assert lanes == pytest.approx(2048 + 4096 + 256 + 128 + 4096 + 40960 + 16)
    # per warp: at most one a warp where a branch admits half its lanes; a warp's 32 lanes as one elsewhere; one lane
    # of each group (1/256 of the lanes) already less than one a warp
    assert warps == pytest.approx(128 + 128 + 8 + 128 + 4096 + 1280 + 16)


def test_features_read_it_on_gpus_when_the_model_says_so():
    gpu = json.loads((REPO / "data/datasets/nvidia-h200/device.json").read_text())
    cpu = json.loads((REPO / "data/datasets/ci-tiny/device.json").read_text())
    assert gpu["type"] == "GPU" and cpu["type"] != "GPU"
    source = pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": SOURCE}])
    launches = pd.DataFrame([{"device_id": d, "source_id": "s", "kernel_name": "k", "dims": 1, "g0": 4096, "g1": 1,
                              "g2": 1, "l0": 256, "l1": 1, "l2": 1, "args": json.dumps({"n": 10, "B": 32})}
                             for d in ("g", "c")])
    column = feature_names().index("traffic_global_atomic_depth_total")
    on = to_launch_features(launches, source, {"g": gpu, "c": cpu})
    off = to_launch_features(launches, source, {"g": gpu, "c": cpu}, warp_atomics=False)
    assert np.expm1(on[0, column]) == pytest.approx(128 + 128 + 8 + 128 + 4096 + 1280 + 16, rel=1e-5)
    assert np.expm1(off[0, column]) == pytest.approx(2048 + 4096 + 256 + 128 + 4096 + 40960 + 16, rel=1e-5)
    assert np.array_equal(on[1], off[1])  # a CPU reads it per lane either way
    rest = [c for c in range(on.shape[1]) if feature_names()[c] not in ("traffic_global_atomic_depth",
                                                                         "traffic_global_atomic_depth_total")]
    assert np.array_equal(on[0, rest], off[0, rest])


def test_a_model_reads_it_as_its_config_says(tmp_path):
    import shutil

    from kgraph.errors import ModelError
    from kgraph.models.merge_models import merge_models

    path = tmp_path / "k.cl"
    path.write_text(SOURCE)
    config = json.loads((REPO / "models/default/config.json").read_text())
    assert config["warp_atomics"] is True  # shipped under the rule of docs/MODELS.md (session 23)
    per_lane = tmp_path / "per_lane"  # the same model as it was fit: no key, the depth per lane
    shutil.copytree(REPO / "models/default", per_lane)
    (per_lane / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != "warp_atomics"}))
    launch = dict(file=path, kernel="k", global_size=[1 << 20], local_size=[256], args={"n": 4, "B": 32},
                  device="nvidia-h200")
    lanes, warps = kgraph.load_model(per_lane).estimate(**launch), kgraph.load_model().estimate(**launch)
    assert warps["time_ns"] < lanes["time_ns"]
    cpu = {**launch, "device": str(REPO / "data/datasets/ci-tiny/device.json")}
    assert kgraph.load_model(per_lane).estimate(**cpu)["time_ns"] == kgraph.load_model().estimate(**cpu)["time_ns"]
    with pytest.raises(ModelError, match="warp_atomics differ"):
        merge_models([REPO / "models/default", per_lane], tmp_path / "merged")
