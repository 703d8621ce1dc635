"""Global traffic by access pattern and its sector estimate (kgraph/analysis/traffic.py), and the
``traffic_`` feature group built from it (data/features.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import kgraph
from kgraph.analysis.traffic import LANES, LINE_BYTES, SECTOR_BYTES, TRAFFIC_KEYS, sector_bytes, traffic_exprs
from kgraph.data.features import STATIC_COUNTS, TRAFFIC_FEATURES, feature_names, to_launch_features

REPO = Path(__file__).resolve().parents[1]

FOUR_PATTERNS = """
__kernel void four(int n, int s, __global const float *x, __global const float *y,
                   __global const int *idx, __global const float4 *v, __global float *out)
{
    int i = get_global_id(0);
    float acc = x[i];                 // coalesced, 4 bytes
    for (int j = 0; j < n; j++)
        acc += y[j];                  // broadcast, n times
    acc += x[i * s];                  // strided by s
    acc += y[idx[i]];                 // idx coalesced, y gathered
    float4 w = v[i];                  // coalesced, 16 bytes
    out[i] = acc + w.x;               // coalesced store
}
"""


def _analysis(source: str, name: str):
    graph = next(g for g in kgraph.from_source(source, "opencl", filename="<t>") if g.name == name)
    return graph.analysis


def _at(exprs, **env):
    exprs = [sp.sympify(e) for e in exprs]
    return [float(e.subs({s: env[s.name] for s in e.free_symbols})) for e in exprs]


def test_bytes_by_pattern_and_sectors_by_hand():
    values = dict(zip(TRAFFIC_KEYS, _at(traffic_exprs(_analysis(FOUR_PATTERNS, "four")), n=100, s=8)))
    # coalesced: x[i] 4 + idx[i] 4 + v[i] 16 + out[i] 4; broadcast: y[j] 4 x n; strided: x[i*s]; indirect: y[idx]
    assert values["global_coalesced_bytes"] == 28
    assert values["global_broadcast_bytes"] == 400
    assert values["global_strided_bytes"] == 4
    assert values["global_indirect_bytes"] == 4
    broadcast = 100 * SECTOR_BYTES / LANES  # one sector per LANES work-items, n times
    strided = min(SECTOR_BYTES, 8 * 4)      # stride 8 floats: every work-item its own sector
    assert values["global_sector_bytes"] == 28 + broadcast + strided + SECTOR_BYTES


def test_item_line_bytes_by_hand():
    values = dict(zip(TRAFFIC_KEYS, _at(traffic_exprs(_analysis(FOUR_PATTERNS, "four")), n=100, s=8)))
    # outside the loop, along gid0: x[i] 4, x[i*s] min(64, 8*4), idx[i] 4, y[idx] a line, v[i] 16, out[i] 4;
    # y[j] in the loop over j: 4 bytes an iteration, n of them
    assert values["global_item_line_bytes"] == 4 + 32 + 4 + LINE_BYTES + 16 + 4 + 100 * 4


def test_a_column_walk_is_contiguous_for_one_work_item_though_strided_across_them():
    src = """__kernel void colwalk(int n, __global double *B, __global const double *L) {
        int r = get_global_id(0);
        for (int i = 0; i < n; i++)
            B[r * n + i] -= L[i * n];     // B: stride 1 along i, n across work-items; L: stride n along i
    }"""
    values = dict(zip(TRAFFIC_KEYS, _at(traffic_exprs(_analysis(src, "colwalk")), n=1000)))
    assert values["global_item_line_bytes"] == 1000 * (8 + 8 + LINE_BYTES)  # B load and store, L a line each
    assert values["global_sector_bytes"] == 1000 * (SECTOR_BYTES * 2 + SECTOR_BYTES / LANES)  # L broadcast


def test_item_line_bytes_are_a_cpu_feature():
    import pandas as pd

    launch = {"source_id": "s", "kernel_name": "four", "dims": 1, "g0": 4096, "g1": 1, "g2": 1,
              "l0": 128, "l1": 1, "l2": 1, "args": json.dumps({"n": 100, "s": 8})}
    devices = {d: json.loads((REPO / f"data/datasets/{d}/device.json").read_text())
               for d in ("nvidia-h200", "pocl-skylake-avx512-intel-xeon")}
    x = to_launch_features(pd.DataFrame([{**launch, "device_id": d} for d in devices]),
                           pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": FOUR_PATTERNS}]), devices)
    f = {n: x[:, i].astype(np.float64) for i, n in enumerate(feature_names())}
    line = 4 + 32 + 4 + LINE_BYTES + 16 + 4 + 100 * 4  # test_item_line_bytes_by_hand
    assert f["traffic_global_item_line_bytes"].tolist() == [0.0, pytest.approx(np.log1p(line), rel=1e-6)]
    assert f["traffic_global_item_line_bytes_total"][0] == 0.0 < f["traffic_global_item_line_bytes_total"][1]
    assert f["traffic_global_sector_bytes"][0] == f["traffic_global_sector_bytes"][1] > 0  # the others: both


def test_sector_bytes_of_each_pattern():
    assert sector_bytes("broadcast", 4, 0) == sp.Rational(SECTOR_BYTES, LANES)
    assert sector_bytes("coalesced", 16, 1) == 16
    assert sector_bytes("strided", 4, 2) == 8 and sector_bytes("strided", 4, 1000) == SECTOR_BYTES
    assert sector_bytes("indirect", 4, None) == SECTOR_BYTES
    k = sp.Symbol("K")
    assert float(sector_bytes("strided", 4, k).subs(k, 3)) == 12
    # a stride the analysis could not differentiate is one sector per work-item, never an unprintable formula
    unknown = sp.Derivative(sp.Mod(sp.Symbol("g"), 7), sp.Symbol("g"))
    assert sector_bytes("strided", 4, unknown) == SECTOR_BYTES


@pytest.mark.parametrize("path", sorted((REPO / "data/holdout/cl").glob("*.cl"))[:12], ids=lambda p: p.stem)
def test_pattern_bytes_add_up_to_the_counted_bytes(path):
    """Requested bytes of the four classes = the analysis' global load + store bytes, symbolically."""
    for graph in kgraph.from_source(path.read_text(), "opencl", filename=str(path)):
        a = graph.analysis
        if a is None:
            continue
        exprs = traffic_exprs(a)
        requested = sum(exprs[:4])
        counted = sp.sympify(a.counts["global_load_bytes"]) + sp.sympify(a.counts["global_store_bytes"])
        assert sp.simplify(requested - counted) == 0, graph.name
        assert sp.simplify(exprs[4] - requested) != 0 or not any(x.pattern == "broadcast" and x.kind != "atomic"
                                                            for x in a.accesses)


def test_traffic_features_at_a_launch():
    import pandas as pd

    launch = {"device_id": "d", "source_id": "s", "kernel_name": "four", "dims": 1, "g0": 4096, "g1": 1, "g2": 1,
              "l0": 128, "l1": 1, "l2": 1, "args": json.dumps({"n": 100, "s": 8})}
    device = json.loads((REPO / "data/datasets/nvidia-h200/device.json").read_text())
    x = to_launch_features(pd.DataFrame([launch]), pd.DataFrame([{"source_id": "s", "lang": "opencl",
                                                                  "source": FOUR_PATTERNS}]), {"d": device})
    names = feature_names()
    assert names[-len(TRAFFIC_FEATURES):] == list(TRAFFIC_FEATURES)
    f = dict(zip(names, x[0].astype(np.float64)))
    assert f["traffic_global_broadcast_bytes"] == pytest.approx(np.log1p(400), rel=1e-6)
    assert f["traffic_global_broadcast_bytes_total"] == pytest.approx(np.log1p(400 * 4096), rel=1e-6)
    sectors = 28 + 100 + 32 + 32
    assert f["traffic_global_sector_bytes"] == pytest.approx(np.log1p(sectors), rel=1e-6)
    flops = np.expm1(f["static_flops_fp32_total"])
    assert f["traffic_log_sector_intensity"] == pytest.approx(np.log1p(flops / (sectors * 4096)), rel=1e-5)
    # the counts are unchanged by the traffic that follows them in the compiled vector
    assert f["static_global_load_bytes"] == pytest.approx(np.log1p(28 - 4 + 400 + 4 + 4), rel=1e-6)
    assert len(STATIC_COUNTS) + len(TRAFFIC_KEYS) == 21


def test_models_without_the_switch_never_read_the_traffic():
    from kgraph.models.kgraph_model import ModelConfig
    from kgraph.models.launch_encoder import select_columns

    names = feature_names()
    off = select_columns(names, ModelConfig(use_tokens=False).feature_groups())
    on = select_columns(names, ModelConfig(use_tokens=False, use_traffic=True).feature_groups())
    traffic = {names.index(n) for n in TRAFFIC_FEATURES}
    assert not traffic & set(off) and traffic <= set(on) and set(off) < set(on)
    shipped = json.loads((REPO / "models/default/config.json").read_text())
    if not shipped["arch"].get("use_traffic"):
        assert not any(n.startswith("traffic_") for n in shipped["feature_names"])
