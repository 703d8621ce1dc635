"""The 80% time interval's margin by exactness: launches whose counts are exact take one conformal margin, the
others another (``margins_by_exactness`` in ``interval.pt``'s metrics; docs/MODELS.md "The margin by exactness")."""
from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import kgraph
from kgraph.errors import ModelError
from kgraph.models.compact import from_checkpoint, to_checkpoint
from kgraph.models.model_files import load_interval_head

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
SAXPY = ROOT / "examples/opencl/saxpy.cl"
# a branch on data: never exact
BRANCHY = """__kernel void clip(__global const float *x, __global float *y, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    if (v > 0.0f) v = v * v + 1.0f;
    y[i] = v;
}
"""


def _model_with(tmp_path: Path, margins) -> Path:
    """A copy of the shipped model whose interval head carries ``margins`` (None: none)."""
    out = tmp_path / "model"
    shutil.copytree(ROOT / "models/default", out)
    bundle = from_checkpoint(out / "interval.pt")
    metrics = {k: v for k, v in bundle.metrics.items() if k != "margins_by_exactness"}
    if margins is not None:
        metrics["margins_by_exactness"] = margins
    to_checkpoint(bundle.head, out / "interval.pt", bundle.code_table, bundle.devices, metrics, bundle.sources)
    return out


def _launches(tmp_path: Path) -> list[dict]:
    branchy = tmp_path / "clip.cl"
    branchy.write_text(BRANCHY)
    return [{"file": SAXPY, "kernel": "saxpy", "global": [1 << 20], "local": [256], "args": {"n": 1 << 20, "a": 2.0},
             "device": DEVICE},
            {"file": branchy, "kernel": "clip", "global": [1 << 20], "local": [256], "args": {"n": 1 << 20},
             "device": DEVICE}]


def test_bad_margins_are_named(tmp_path):
    bad = ({"exact": 0.1}, {"exact": 0.1, "inexact": math.nan}, {"exact": 0.1, "inexact": "wide"}, [0.1, 0.2])
    for k, margins in enumerate(bad):
        with pytest.raises(ModelError, match="margins_by_exactness"):
            load_interval_head(_model_with(tmp_path / str(k), margins) / "interval.pt")
    head = load_interval_head(_model_with(tmp_path, {"exact": 0.1, "inexact": 0.9}) / "interval.pt")
    assert head.margins_by_exactness == {"exact": 0.1, "inexact": 0.9}


def test_each_launch_takes_its_groups_margin(tmp_path):
    launches = _launches(tmp_path)
    shipped = kgraph.load_model(_model_with(tmp_path / "one", None)).estimate_many(launches)  # one margin for all
    assert [r["flops_source"] for r in shipped] == ["static", "model"]
    m = float(load_interval_head(ROOT / "models/default/interval.pt").interval_margin)

    def widths(margins):
        recs = kgraph.load_model(_model_with(tmp_path / str(margins), margins)).estimate_many(launches)
        for r, s in zip(recs, shipped):
            assert r["time_ns"] == s["time_ns"] and r["time_lo_ns"] <= r["time_ns"] <= r["time_hi_ns"]
        return np.log([r["time_hi_ns"] / r["time_ns"] for r in recs]), recs

    # the head's own margin for both groups: the shipped interval, up to float rounding
    same, recs = widths({"exact": m, "inexact": m})
    for r, s in zip(recs, shipped):
        assert r["time_hi_ns"] == pytest.approx(s["time_hi_ns"], rel=1e-5)
        assert r["time_lo_ns"] == pytest.approx(s["time_lo_ns"], rel=1e-5)
    # a wider margin for launches whose counts are not exact widens only theirs, by the difference (ln)
    wide, _ = widths({"exact": m, "inexact": m + 0.5})
    assert wide[0] == pytest.approx(same[0], abs=1e-5) and wide[1] == pytest.approx(same[1] + 0.5, abs=1e-5)
    # a margin so negative that it would cross the point leaves the end at the point
    narrow, _ = widths({"exact": -50.0, "inexact": m})
    assert narrow[0] == 0.0 and narrow[1] == pytest.approx(same[1], abs=1e-5)


def test_the_shipped_interval_has_a_margin_by_exactness():
    """The shipped margins (docs/MODELS.md "The margin by exactness", candidate B): wider where counts are not
    exact; the exports' one margin (the head's) lies between them."""
    head = load_interval_head(ROOT / "models/default/interval.pt")
    margins = head.margins_by_exactness
    assert margins is not None and margins["exact"] < float(head.interval_margin) < margins["inexact"]


NEWTON = """__kernel void newton(__global const float *p, __global float *r)
{
    int i = get_global_id(0);
    float x = 1.0f, step = 1.0f;
    while (fabs(step) > 1e-6f) {
        step = (x * x - p[i]) / (2.0f * x);
        x -= step;
    }
    r[i] = x;
}
"""


def test_an_assumed_group_gives_launches_at_an_assumed_trip_count_their_own_pair(tmp_path):
    """``margins_by_exactness["assumed"]`` = [lower, upper]: a launch reading a loop at its assumed trip count takes
    that pair (lower end never above the point), the same launch with the trip given does not, others keep theirs."""
    (tmp_path / "newton.cl").write_text(NEWTON)
    launches = _launches(tmp_path) + [
        {"file": tmp_path / "newton.cl", "kernel": "newton", "global": [4096], "local": [64], "device": DEVICE},
        {"file": tmp_path / "newton.cl", "kernel": "newton", "global": [4096], "local": [64], "device": DEVICE,
         "args": {"trip_5": 6}}]
    m = float(load_interval_head(ROOT / "models/default/interval.pt").interval_margin)
    base = kgraph.load_model(_model_with(tmp_path / "two", {"exact": m, "inexact": m})).estimate_many(launches)
    recs = kgraph.load_model(_model_with(tmp_path / "three", {"exact": m, "inexact": m, "assumed": [m - 0.2, m + 2.0]}
                                         )).estimate_many(launches)
    up = [math.log(r["time_hi_ns"] / b["time_hi_ns"]) for r, b in zip(recs, base)]
    assert up[:2] == [pytest.approx(0.0, abs=1e-6)] * 2 and up[3] == pytest.approx(0.0, abs=1e-6)
    assert up[2] == pytest.approx(2.0, abs=1e-5)  # only the launch at the assumed trip count
    lo, point = recs[2]["time_lo_ns"], recs[2]["time_ns"]
    assert lo <= point and lo == pytest.approx(min(point, base[2]["time_lo_ns"] * math.exp(0.2)), rel=1e-5)
    with pytest.raises(ModelError, match="lower, upper"):
        load_interval_head(_model_with(tmp_path / "bad", {"exact": m, "inexact": m, "assumed": [m]}) / "interval.pt")


def test_assumed_flags_read_the_per_kernel_facts_where_given(tmp_path):
    """The per-kernel ``assumes`` of ``static_facts`` gives the same flags: only kernels that assume a trip count are
    asked launch by launch."""
    from kgraph.app.static_outputs import assumed_flags, static_facts

    (tmp_path / "newton.cl").write_text(NEWTON)
    requests = _launches(tmp_path) + [
        {"file": tmp_path / "newton.cl", "kernel": "newton", "global": [4096], "local": [64], "device": DEVICE},
        {"file": tmp_path / "newton.cl", "kernel": "newton", "global": [4096], "local": [64], "device": DEVICE,
         "args": {"trip_5": 6}}]
    launches = kgraph.load_model().launches_of(requests)[0]
    flags = assumed_flags(launches, static_facts(launches)[3])
    assert flags == assumed_flags(launches) == [False, False, True, False]
