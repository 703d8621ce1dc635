"""Analyse once, predict fast (issue 13 §4): one parse and one analysis per (source, kernel) on the estimate
path, shared by the static-count features, the static footprint and the exact counts; the batch versions
of the static checks give what the one-launch versions give; dataset rows (no analysis) still work."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kgraph
from kgraph.app.static_checks import (coverage_warnings, coverage_warnings_many, kernel_facts, static_counts,
                                      static_counts_many)
from kgraph.data.features import to_launch_features
from kgraph.data.static_counts import compile_counts
from kgraph.models.launches import kernel_footprint, kernels_of, make_launch, static_footprints, to_tables

ROOT = Path(__file__).resolve().parent.parent
SAXPY = str(ROOT / "examples/opencl/saxpy.cl")
GEMM_CU = str(ROOT / "examples/cuda/sgemm_shared.cu")
DEVICE = {**json.loads((ROOT / "data/datasets/ci-tiny/device.json").read_text()), "device_id": "d"}


@pytest.fixture
def counted(monkeypatch):
    """Counts of parses and analyses made through the estimate path's entry points."""
    import kgraph.analysis
    import kgraph.parsers

    calls = {"parse": 0, "analyze": 0}
    analyze, parse_file, parse_source = kgraph.analysis.analyze, kgraph.parsers.parse_file, kgraph.parsers.parse_source

    def counting(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(kgraph.analysis, "analyze", counting("analyze", analyze))
    monkeypatch.setattr(sys.modules["kgraph.analysis.analyze"], "analyze", counting("analyze", analyze))
    monkeypatch.setattr(kgraph.parsers, "parse_file", counting("parse", parse_file))
    monkeypatch.setattr(kgraph.parsers, "parse_source", counting("parse", parse_source))
    return calls


def test_one_parse_and_one_analysis_per_kernel(counted):
    graphs = kernels_of(SAXPY)
    assert counted == {"parse": 1, "analyze": 0}  # kernels_of does not analyse
    launches = [make_launch(graphs, "saxpy", [256 * k], [256], {"n": 256 * k, "a": 2.0}, DEVICE) for k in (1, 2, 3)]
    footprints = static_footprints(launches)
    rows, sources, devices, _ = to_tables(launches, footprints)
    features = to_launch_features(rows, sources, devices)
    facts = kernel_facts(launches[0].graph)
    counts = static_counts_many(facts, launches)
    assert counted == {"parse": 1, "analyze": 1}
    analysis = launches[0].graph.analysis
    assert facts.analysis is analysis and rows["analysis"][0] is analysis
    assert kernel_footprint(launches[0].graph) is kernel_footprint(launches[1].graph)  # made once, kept
    assert compile_counts(analysis) is compile_counts(analysis)
    assert [c["flops"] for c in counts] == [2 * 256 * k for k in (1, 2, 3)]
    # the features equal the dataset path's (DataFrames; parsing the source text once per kernel)
    frame = rows.to_frame()
    assert np.array_equal(features, to_launch_features(frame, sources.to_frame(), devices))
    from_text = to_launch_features(frame.drop(columns="analysis"), sources.to_frame(), devices)
    assert np.array_equal(features, from_text)
    assert all(fp.exact for fp in footprints)


def test_kgraph_estimate_many_parses_and_analyses_each_kernel_once(counted, tmp_path):
    from kgraph.app.static_outputs import with_static_outputs

    graphs = kernels_of(GEMM_CU)
    sizes = {"M": 2048, "N": 2048, "K": 2048}
    launches = [make_launch(graphs, "sgemm_shared", g, [32, 32], sizes, DEVICE) for g in ([2048, 2048], [64, 64])]
    out = with_static_outputs(launches, [{}, {}], [False, False])
    assert counted == {"parse": 1, "analyze": 1}
    assert out[0]["flops_source"] == "static" and out[0]["flops"] == 2 * 2048 ** 3 and out[0]["warnings"] == []
    assert out[1]["warnings"][0].startswith("dimension 1: the stores step by 2048 elements")
    assert out[1]["warnings"][-1].startswith("for CUDA, --global is threads per dimension")


@pytest.mark.parametrize("path, kernel, launches", [
    (SAXPY, "saxpy", [([1024], [256], {"n": 1 << 20, "a": 2.0}), ([1 << 20], [256], {"n": 1 << 20, "a": 2.0}),
                      ([512], [256], {"n": 0, "a": 1.0})]),
    (GEMM_CU, "sgemm_shared", [([2048, 2048], [32, 32], {"M": 2048, "N": 2048, "K": 2048}),
                               ([64, 64], [32, 32], {"M": 2048, "N": 2048, "K": 2048}),
                               ([2048, 64], [32, 32], {"M": 64, "N": 2048, "K": 16})]),
    (str(ROOT / "examples/opencl/reduce_local.cl"), "reduce_sum", [([1 << 16], [256], {"n": 1 << 16})]),
    (str(ROOT / "examples/cuda/saxpy_grid_stride.cu"), "saxpy_grid_stride", [([4096], [256], {"n": 1 << 20, "a": 2.0})]),
])
def test_batch_checks_equal_one_launch_checks(path, kernel, launches):
    graphs = {g.name: g for g in kgraph.from_file(path, analyze=False)}
    made = [make_launch(graphs, kernel, g, l, a, DEVICE) for g, l, a in launches]
    facts = kernel_facts(graphs[kernel])
    assert static_counts_many(facts, made) == [static_counts(facts, x) for x in made]
    assert coverage_warnings_many(facts, made) == [coverage_warnings(facts, x) for x in made]
    # and the one-launch numbers are the analysis' own (KernelAnalysis.evaluate, Python floats)
    for launch, counts in zip(made, static_counts_many(facts, made)):
        if counts is None:
            continue
        env = {**launch.args, "global_size": launch.global_size, "local_size": launch.local_size}
        per_item = facts.analysis.evaluate(env)
        items = float(np.prod(launch.global_size))
        assert counts["flops"] == float(round((per_item["flops_fp32"] + per_item["flops_fp64"]) * items))


def test_dataset_rows_without_analysis_still_parse_the_source():
    source = open(SAXPY).read()
    n = 1 << 25  # 256 MiB touched: beyond any cache, so the DRAM floor shows in the features
    rows = pd.DataFrame([{"device_id": "d", "source_id": "s", "kernel_name": "saxpy", "dims": 1, "g0": n,
                          "g1": 1, "g2": 1, "l0": 256, "l1": 1, "l2": 1, "args": f'{{"n": {n}, "a": 2.0}}'}])
    sources = pd.DataFrame([{"source_id": "s", "lang": "opencl", "source": source}])
    x = to_launch_features(rows, sources, {"d": DEVICE})
    graph = kgraph.from_source(source, "opencl")[0]
    # the estimate path passes the analysis and the exact static footprint (n * 4 bytes * 2 buffers);
    # the text path computes the same footprint, and ignores a measured one (a target, not a floor input)
    given = rows.assign(analysis=[graph.analysis], footprint_bytes=[2 * 4 * float(n)])
    y = to_launch_features(given, sources, {"d": DEVICE})
    z = to_launch_features(rows.assign(footprint_bytes=[123.0]), sources, {"d": DEVICE})
    assert np.array_equal(x, y) and np.array_equal(x, z)
    assert not np.array_equal(x, to_launch_features(rows.assign(analysis=[graph.analysis]), sources, {"d": DEVICE}))


def test_a_model_keeps_the_kernels_of_a_file_until_it_changes(counted, tmp_path):
    from kgraph.app.api import Model

    src = tmp_path / "k.cl"
    src.write_text(open(SAXPY).read())
    m = Model(tmp_path)
    first = m.kernels(src)
    assert m.kernels(str(src)) is first and counted["parse"] == 1
    assert m.kernels(src, defines={"X": "1"}) is not first and counted["parse"] == 2  # -D macros: another key
    src.write_text(open(SAXPY).read().replace("a * x[i]", "a * x[i] * x[i]"))
    changed = m.kernels(src)
    assert changed is not first and counted["parse"] == 3
    from kgraph.graphs import analysis_of

    flops = lambda g: str(analysis_of(g["saxpy"]).counts["flops_fp32"])  # noqa: E731
    assert flops(first) != flops(changed)
