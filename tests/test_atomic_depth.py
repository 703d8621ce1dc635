"""Atomic targets and the ``global_atomic_depth`` traffic key (kgraph/analysis/traffic.py)."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy as sp

import kgraph
from kgraph.analysis.traffic import TRAFFIC_KEYS, traffic_exprs
from kgraph.data.features import feature_names, to_launch_features

REPO = Path(__file__).resolve().parents[1]
SOURCE = r'''
__kernel void h(__global const int* x, __global int* hist, const int B, const int n) {
  int i = get_global_id(0);
  for (int k = 0; k < n; ++k) atomic_add(&hist[(i + k) % B], x[i]);
  atomic_inc(hist + get_group_id(0));
  atomic_add(&hist[x[i]], 1);
  atomic_add(hist, 1);
}
'''


def analysis():
    return kgraph.from_source(SOURCE, "opencl")[0].analysis


def test_atomic_targets_are_recorded_without_bytes():
    a = analysis()
    atomic = [x for x in a.accesses if x.kind == "atomic"]
    assert [x.index for x in atomic] == ["(i + k) % B", "get_group_id(0)", "x[i]", ""]
    assert [x.pattern for x in atomic] == ["coalesced", "broadcast", "indirect", "broadcast"]
    # the atomics' targets add nothing to the requested bytes: one 4-byte load of x per iteration and one more
    assert sp.simplify(sp.sympify(a.counts["global_load_bytes"]) - (4 * sp.Symbol("n", integer=True) + 4)) == 0
    assert sp.sympify(a.counts["global_store_bytes"]) == 0


def test_depth_of_each_kind_of_target():
    exprs = dict(zip(TRAFFIC_KEYS, traffic_exprs(analysis())))
    env = {"n": 10, "B": 32, "gsz0": 4096, "gsz1": 1, "gsz2": 1, "ngrp0": 16}
    symbols = {s: env[s.name] for s in exprs["global_atomic_depth"].free_symbols}
    depth = float(exprs["global_atomic_depth"].subs(symbols)) * 4096
    # 4096*10 updates over 32 bins, 4096 over 16 group slots, 4096 on one address; the gather is unbounded
    assert depth == pytest.approx(4096 * 10 / 32 + 4096 / 16 + 4096)
    atomics = exprs["global_atomics"].subs({s: env[s.name] for s in exprs["global_atomics"].free_symbols})
    assert atomics == 13


def test_more_bins_less_depth_at_a_launch():
    device = json.loads((REPO / "data/datasets/nvidia-h200/device.json").read_text())
    source = pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": SOURCE}])
    launches = pd.DataFrame([{"device_id": "d", "source_id": "s", "kernel_name": "h", "dims": 1, "g0": 4096, "g1": 1,
                              "g2": 1, "l0": 256, "l1": 1, "l2": 1, "args": json.dumps({"n": 10, "B": b})}
                             for b in (1, 32, 4096)])
    x = to_launch_features(launches, source, {"d": device}, warp_atomics=False)  # per lane (test_warp_atomics.py)
    depth = x[:, feature_names().index("traffic_global_atomic_depth_total")].astype(np.float64)
    assert depth[0] > depth[1] > depth[2]
    assert np.expm1(depth[2]) == pytest.approx(4096 * 10 / 4096 + 4096 / 16 + 4096, rel=1e-5)
    # a warp applies the group slot's and the counter's atomics once for its 32 lanes
    warps = to_launch_features(launches, source, {"d": device})[:, feature_names().index(
        "traffic_global_atomic_depth_total")].astype(np.float64)
    assert np.expm1(warps[2]) == pytest.approx(4096 * 10 / 4096 + 4096 / 16 / 32 + 4096 / 32, rel=1e-5)


HELPERS = r'''
void bump(__global int *p) { atomic_inc(p); }
float get(__global const float *q) { return *q; }
__kernel void k(__global int *h, __global const int *d, __global const float *x, __global float *y) {
  int i = get_global_id(0);
  bump(&h[i % 8]);
  bump(h);
  bump(&h[d[i]]);
  y[i] = get(&x[i]) + get(x + 2 * i);
}
'''


def test_a_helper_s_pointer_parameter_is_the_element_the_caller_passed():
    """``bump(&h[i % 8])`` updates 8 addresses, ``bump(h)`` one, ``bump(&h[d[i]])`` a loaded one (unbounded:
    before session 18 an atomic on the parameter itself was taken as one address whatever was passed, and
    ``&x[i]`` as an offset loaded from x)."""
    from kgraph.analysis.atomics import atomic_targets

    a = kgraph.from_source(HELPERS, "opencl")[0].analysis
    atomic = [x for x in a.accesses if x.kind == "atomic"]
    assert [x.buffer for x in atomic] == ["h", "h", "h"]
    assert [atomic_targets(x.index_expr, x.context) for x in atomic] == [8, 1, None]
    loads = [x for x in a.accesses if x.kind == "load" and x.buffer == "x"]
    assert [(x.pattern, str(x.index_expr)) for x in loads] == [("coalesced", "gid0"), ("strided", "2*gid0")]
    exprs = dict(zip(TRAFFIC_KEYS, traffic_exprs(a)))
    depth = exprs["global_atomic_depth"].subs({s: 4096 for s in exprs["global_atomic_depth"].free_symbols
                                               if s.name == "gsz0"}).subs({s: 1 for s in
                                                                           exprs["global_atomic_depth"].free_symbols})
    assert float(depth) * 4096 == pytest.approx(4096 / 8 + 4096)  # the loaded address adds nothing
