"""A loop whose trip count depends on data: its mean, given as ``--arg trip_<line>=N``, makes the counts static."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kgraph
from kgraph.app.cli.main import main
from kgraph.analysis.trips import ASSUMED_TRIP
from kgraph.data.features import feature_names, to_launch_features
from kgraph.data.static_counts import KNOWN_ASSUMED, KNOWN_EXACT
from kgraph.data.floors import NO_FLOOR_LOG_NS
from kgraph.models.launches import make_launch, trip_symbols

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
CSR = """__kernel void csr(__global const int *a, __global const int *b, __global const float *c,
                  __global const float *d, __global float *e, int f)
{
    int g = get_global_id(0);
    if (g >= f) return;
    float h = 0.0f;
    for (int j = a[g]; j < a[g + 1]; j++)
        h += c[j] * d[b[j]];
    e[g] = h;
}
"""
# the same loop, plus a branch on data: the counts stay the model's even with a mean trip count
CSR_IF = CSR.replace("h += c[j] * d[b[j]];", "if (c[j] > 0.0f) h += c[j] * d[b[j]];")


@pytest.fixture
def csr_file(tmp_path):
    path = tmp_path / "csr.cl"
    path.write_text(CSR)
    return path


def test_trip_symbols_and_launch_arguments():
    graphs = {g.name: g for g in kgraph.from_source(CSR, "opencl")}
    assert trip_symbols(graphs["csr"]) == ["trip_7"]
    device = json.loads(Path(DEVICE).read_text())
    launch = make_launch(graphs, "csr", [1024], [64], {"f": 1024, "trip_7": 12}, device)
    assert launch.args == {"f": 1024.0, "trip_7": 12.0}
    with pytest.raises(kgraph.UsageError, match="its loops of unknown trip count: trip_7"):
        make_launch(graphs, "csr", [1024], [64], {"f": 1024, "trip_9": 12}, device)
    with pytest.raises(kgraph.UsageError, match="mean trip count is at least 0"):
        make_launch(graphs, "csr", [1024], [64], {"f": 1024, "trip_7": -1}, device)


def test_a_given_trip_count_feeds_the_static_features_not_the_scalar_ones():
    device = json.loads(Path(DEVICE).read_text())
    rows = pd.DataFrame([{"device_id": "d", "source_id": "s", "kernel_name": "csr", "dims": 1, "g0": 1024, "g1": 1,
                          "g2": 1, "l0": 64, "l1": 1, "l2": 1, "args": json.dumps(a)}
                         for a in ({"f": 1024}, {"f": 1024, "trip_7": 12})])
    x = to_launch_features(rows, pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": CSR}]), {"d": device})
    f = {n: x[:, i] for i, n in enumerate(feature_names())}
    assert f["static_known"].tolist() == [KNOWN_ASSUMED, KNOWN_EXACT]
    # without a given mean the loop's count is assumed (one iteration), and the floors take it at 0: one fp32
    # multiply-add against none
    assert np.expm1(f["static_flops_fp32"][0]) == pytest.approx(2 * ASSUMED_TRIP, rel=1e-5)
    assert (f["floor_fp32"] == NO_FLOOR_LOG_NS).tolist() == [True, False]
    for i in range(4):
        assert f[f"launch_arg{i}"][0] == f[f"launch_arg{i}"][1]  # trip_7 is not a fifth... or second scalar
    # 12 iterations of an fp32 multiply-add (2 FLOPs) per work-item
    assert np.expm1(f["static_flops_fp32"][1]) == pytest.approx(24, rel=1e-5)


def test_estimate_reports_static_counts_at_the_given_mean(capsys, model_dir, csr_file, tmp_path):
    base = ["estimate", str(csr_file), "--kernel", "csr", "--global", "4096", "--local", "64", "--arg", "f=4096",
            "--device", DEVICE, "--model", str(model_dir), "--json"]
    assert main(base) == 0
    unknown = json.loads(capsys.readouterr().out)
    assert unknown["flops_source"] == "model" and "--arg trip_7=N" in unknown["counts_note"]
    assert main(base + ["--arg", "trip_7=12"]) == 0
    known = json.loads(capsys.readouterr().out)
    assert known["flops_source"] == known["bytes_source"] == "static" and known["counts_note"] == ""
    assert known["flops"] == 4096 * 12 * 2
    # c[j], b[j], d[b[j]] per iteration; a[g + 1] in each of the 13 conditions; a[g] and e[g] once
    assert known["bytes"] == 4096 * (12 * 12 + 13 * 4 + 4 + 4)
    other = tmp_path / "csr_if.cl"
    other.write_text(CSR_IF)
    assert main([base[0], str(other), *base[2:], "--arg", "trip_7=12"]) == 0
    branchy = json.loads(capsys.readouterr().out)
    assert branchy["flops_source"] == "model" and "line 8: a condition depends on data" in branchy["counts_note"]
    assert "--arg trip_7=N" not in branchy["counts_note"]  # the mean alone would not make its counts exact
