"""Segment loops (``for (k = ptr[r]; k < ptr[r + 1]; k++)``): recognised by the analysis, and their mean trip
count taken from the buffer lengths a launch gives (``--buffer NAME=ELEMENTS``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import kgraph
from kgraph.analysis.segments import segment_loops, segment_trips
from kgraph.app.cli.main import main
from kgraph.graphs import analysis_of
from kgraph.models.launches import make_launch

ROOT = Path(__file__).resolve().parent.parent
DEVICE = str(ROOT / "data/datasets/ci-tiny/device.json")
# a scalar CSR SpMV, its bounds behind locals defined once
CSR = """__kernel void csr(__global const int *rp, __global const int *col, __global const float *val,
                  __global const float *x, __global float *y, int n)
{
    int r = get_global_id(0);
    if (r >= n) return;
    const int begin = rp[r], end = (int)rp[r + 1];
    float h = 0.0f;
    for (int k = begin; k < end; k++)
        h += val[k] * x[col[k]];
    y[r] = h;
}
"""
# LANES work-items split a row (a constant stride), and a work-group splits a row (a local-size stride)
VECTOR = """#define LANES 4
__kernel void vec(__global const int *rp, __global const float *val, __global float *y, int n)
{
    int r = get_global_id(0) / LANES;
    int q = get_global_id(0) % LANES;
    float h = 0.0f;
    for (int k = rp[r] + q; k < rp[r + 1]; k += LANES)
        h += val[k];
    y[r * LANES + q] = h;
}
__kernel void grp(__global const int *rp, __global const float *val, __global float *y)
{
    const int r = get_group_id(0);
    const int lsize = get_local_size(0);
    float h = 0.0f;
    for (int k = rp[r] + get_local_id(0); k < rp[r + 1]; k += lsize)
        h += val[k];
    y[get_global_id(0)] = h;
}
"""
# a quadratic scan of each neighbour list: before, after and from the outer variable
SCAN = """__kernel void scan(__global const int *rp, __global const int *lab, __global int *out)
{
    int v = get_global_id(0);
    int begin = rp[v], end = rp[v + 1], best = 0;
    for (int i = begin; i < end; i++) {
        for (int j = begin; j < i; j++) best += lab[j];
        for (int j = i + 1; j < end; j++) best -= lab[j];
        for (int j = i; j < end; j++) best ^= lab[j];
        best += lab[i];
    }
    out[v] = best;
}
"""
# not segments: two offsets buffers, a gap of two, a bound changed in the loop, a step-1 loop entered past its
# segment's start, no buffer indexed by the loop variable
NOT = """__kernel void two(__global const int *p, __global const int *q, __global float *v, __global float *y)
{
    int r = get_global_id(0);
    float h = 0.0f;
    for (int k = p[r]; k < q[r + 1]; k++) h += v[k];
    for (int k = p[r]; k < p[r + 2]; k++) h += v[k];
    int e = p[r + 1];
    for (int k = p[r]; k < e; k++) { h += v[k]; e--; }
    for (int k = p[r] + 1; k < p[r + 1]; k++) h += v[k];
    for (int k = p[r]; k < p[r + 1]; k++) h += v[2 * k];
    y[r] = h;
}
"""


def _segments(source: str, kernel: str):
    graph = {g.name: g for g in kgraph.from_source(source, "opencl")}[kernel]
    return segment_loops(analysis_of(graph), graph.unit, graph.function)


def test_a_csr_row_loop_is_a_segment_and_its_mean_is_entries_per_row():
    seg = _segments(CSR, "csr")
    assert list(seg) == ["trip_8"]
    s = seg["trip_8"]
    assert (s.kind, s.offsets, s.entries, s.lanes) == ("segment", "rp", ("col", "val"), 1)
    assert segment_trips(seg, {"rp": 1001, "col": 12000, "val": 12000}) == {"trip_8": 12.0}
    # the shortest entry buffer counts; without one, or without a row, no mean
    assert segment_trips(seg, {"rp": 1001, "col": 12000, "val": 14000}) == {"trip_8": 12.0}
    assert segment_trips(seg, {"rp": 1001}) == {} and segment_trips(seg, {"rp": 1, "col": 5}) == {}
    assert "len(col/val) / (len(rp) - 1)" in s.describe()


def test_strided_segments_divide_by_their_lanes():
    vec, grp = _segments(VECTOR, "vec"), _segments(VECTOR, "grp")
    assert vec["trip_7"].lanes == 4 and grp["trip_16"].local_dim == 0
    assert segment_trips(vec, {"rp": 101, "val": 4000}) == {"trip_7": 10.0}
    assert segment_trips(grp, {"rp": 101, "val": 4000}, [8]) == {"trip_16": 5.0}


def test_scans_of_a_segment_take_half_its_mean_length():
    seg = _segments(SCAN, "scan")
    assert {k: v.kind for k, v in seg.items()} == {"trip_5": "segment", "trip_6": "prefix", "trip_7": "suffix",
                                                   "trip_8": "rest"}
    assert all(v.outer == "trip_5" for k, v in seg.items() if k != "trip_5")
    assert segment_trips(seg, {"rp": 11, "lab": 90}) == {"trip_5": 9.0, "trip_6": 4.0, "trip_7": 4.0, "trip_8": 5.0}


def test_other_loops_over_loaded_bounds_are_not_segments():
    assert _segments(NOT, "two") == {}


def test_a_launch_with_buffer_lengths_gets_the_mean_and_exact_totals(tmp_path):
    """Every row visited once: the mean from the lengths makes the counts' totals exact (2 FLOPs an entry)."""
    path = tmp_path / "csr.cl"
    path.write_text(CSR)
    model = kgraph.load_model()
    rows, nnz = 4096, 4096 * 7
    r = model.estimate(path, "csr", [rows], [64], {"n": rows}, DEVICE, buffers={"rp": rows + 1, "col": nnz,
                                                                                "val": nnz, "x": rows, "y": rows})
    assert r["derived_trips"] == {"trip_8": 7.0} and r["args"] == {"n": rows}
    assert r["flops_source"] == "static" and r["flops"] == 2 * nnz
    # a mean given with --arg wins over the lengths
    given = model.estimate(path, "csr", [rows], [64], {"n": rows, "trip_8": 3}, DEVICE, buffers={"rp": rows + 1,
                                                                                                "col": nnz})
    assert given["derived_trips"] == {} and given["flops"] == 2 * 3 * rows
    plain = model.estimate(path, "csr", [rows], [64], {"n": rows}, DEVICE)
    assert plain["derived_trips"] == {} and plain["buffers"] == {} and plain["flops_source"] == "model"
    assert "trip_8 follows from the buffers' lengths: --buffer rp=SEGMENTS+1 --buffer col=ENTRIES" in plain["counts_note"]
    assert "buffers' lengths" not in r["counts_note"]
    # every buffer's length given: the footprint is at most what they hold (4-byte elements)
    held = 4 * (rows + 1 + 2 * nnz + 2 * rows)
    assert r["footprint_bytes"] <= held and (r["footprint_source"] == "buffers") == (r["footprint_bytes"] == held)
    tiny = model.estimate(path, "csr", [rows], [64], {"n": rows}, DEVICE, buffers={"rp": rows + 1, "col": 8, "val": 8,
                                                                                   "x": 1, "y": rows})
    assert (tiny["footprint_bytes"], tiny["footprint_source"]) == (4 * (2 * rows + 1 + 17), "buffers")
    # one batch, the same launch with other lengths: predicted apart (the cap differs)
    same = dict(file=path, kernel="csr", global_size=[rows], local_size=[64], args={"n": rows}, device=DEVICE)
    batch = model.estimate_many([{**{"file": path, "kernel": "csr", "global": [rows], "local": [64],
                                     "args": {"n": rows}, "device": DEVICE},
                                  "buffers": {"rp": rows + 1, "col": 8, "val": 8, "x": x, "y": rows}} for x in (1, 2)])
    assert [b["footprint_bytes"] for b in batch] == [4 * (2 * rows + 1 + 17), 4 * (2 * rows + 1 + 18)]
    assert model.estimate(**same)["footprint_source"] == "model"


def test_bad_buffer_lengths_are_named():
    graphs = {g.name: g for g in kgraph.from_source(CSR, "opencl")}
    device = json.loads(Path(DEVICE).read_text())
    for buffers, message in (({"n": 5}, "--buffer n: kernel csr has no buffer parameter of that name "
                                        r"\(its buffers: rp, col, val, x, y\)"),
                             ({"col": 0}, "--buffer col=0: a buffer's length is a positive whole number"),
                             ({"col": 2.5}, "--buffer col=2.5: a buffer's length"),
                             ({"col": "many"}, "--buffer col=many: a buffer's length"),
                             ([1, 2], "--buffer: buffer lengths are an object")):
        with pytest.raises(kgraph.UsageError, match=message):
            make_launch(graphs, "csr", [1024], [64], {"n": 1024}, device, "f.csv:3", buffers)


def test_cli_buffer_option_and_csv_column(tmp_path, capsys):
    path = tmp_path / "csr.cl"
    path.write_text(CSR)
    base = ["estimate", str(path), "--kernel", "csr", "--global", "1024", "--arg", "n=1024", "--device", DEVICE]
    assert main(base + ["--buffer", "rp=1025", "--buffer", "col=8192", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["derived_trips"] == {"trip_8": 8.0}
    assert main(base + ["--buffer", "rp=1025", "--buffer", "col=8192"]) == 0
    assert "trip_8 = 8 (mean per entry, from the --buffer lengths)" in capsys.readouterr().out
    assert main(base + ["--buffer", "rp"]) == 2
    assert "--buffer rp: expected NAME=VALUE" in capsys.readouterr().err
    batch = tmp_path / "runs.csv"
    batch.write_text("kernel,global,n,buffer:rp,buffer:col\ncsr,1024,1024,1025,4096\ncsr,1024,1024,1025,0\n")
    assert main(["estimate", str(path), "--batch", str(batch), "--device", DEVICE, "--json"]) == 2
    assert f"{batch}:3: --buffer col=0.0: a buffer's length" in capsys.readouterr().err
    batch.write_text("kernel,global,n,buffer:rp,buffer:col\ncsr,1024,1024,1025,4096\n")
    assert main(["estimate", str(path), "--batch", str(batch), "--device", DEVICE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["derived_trips"] == {"trip_8": 4.0}
