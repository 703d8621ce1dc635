"""The kernel generator (kgraph.data.generator): determinism, spec invariants, parsing, static
counts, correctness on PoCL against the numpy reference, and instrumented == static counts."""
from __future__ import annotations

import dataclasses
import inspect
import json
import re

import numpy as np
import pytest

from kgraph.analysis import analyze
from kgraph.data.corpus import all_specs
from kgraph.data.corpus.check import check_spec, compare, run_spec
from kgraph.data.corpus.spec import MAX_LAUNCH_BYTES
from kgraph.data.generator import generate, specs
from kgraph.data.generator import ir
from kgraph.data.generator.evaluator import ReferenceError_
from kgraph.data.generator.interpreter import run_kernel
from kgraph.data.generator.launch import MEM_CAP
from kgraph.data.harness.counts import static_counts
from kgraph.data.harness.sampling import DeviceLimits, sample_launches
from kgraph.errors import MeasurementError
from kgraph.instrument import COUNTER_NAMES
from kgraph.parsers import parse_source

SEED = 0
COUNT = 240
SPECS = specs(COUNT, SEED)
RECIPES = {s.kernel_id: generate(SEED, int(s.kernel_id.split(".")[-1]))[1] for s in SPECS}
NVIDIA = (1024, [1024, 1024, 64])
ALLOWED = re.compile(r"^(gsz|lsz|ngrp)[0-2]$")


def test_deterministic_unique_and_prefix_stable():
    again = specs(60, SEED)
    assert [s.source for s in again] == [s.source for s in SPECS[:60]]
    assert [s.to_json() for s in again] == [s.to_json() for s in SPECS[:60]]
    ids = [s.kernel_id for s in SPECS]
    assert ids == [f"gen.{SEED}.{n}" for n in range(COUNT)]
    assert len({s.source.replace(s.kernel_name, "") for s in SPECS}) == COUNT
    other = specs(20, SEED + 1)
    assert not {s.source for s in other} & {s.source for s in SPECS}
    assert inspect.signature(specs).parameters["count"].default == 3000


def test_families_group_kernels():
    families = {s.family for s in SPECS}
    assert all(f.startswith("generated.") for f in families)
    assert 15 <= len(families) < COUNT / 2  # groups of kernels, not one family per kernel
    assert all(s.family == RECIPES[s.kernel_id].family for s in SPECS)


def test_specs_from_env_filters_families_keeping_ids(monkeypatch):
    from kgraph.data.generator import specs_from_env

    monkeypatch.setenv("KGRAPH_GENERATOR_COUNT", str(COUNT))
    monkeypatch.setenv("KGRAPH_GENERATOR_SEED", str(SEED))
    monkeypatch.setenv("KGRAPH_GENERATOR_FAMILIES", " generated.regblock-*, generated.tile-* ,")
    picked = specs_from_env()
    want = [s for s in SPECS if s.family.startswith(("generated.regblock-", "generated.tile-"))]
    assert picked and [s.kernel_id for s in picked] == [s.kernel_id for s in want]
    assert [s.source for s in picked] == [s.source for s in want]
    monkeypatch.setenv("KGRAPH_GENERATOR_FAMILIES", "")
    assert [s.kernel_id for s in specs_from_env()] == [s.kernel_id for s in SPECS]


@pytest.mark.parametrize("spec", SPECS[:120], ids=lambda s: s.kernel_id)
def test_spec_invariants(spec):
    assert json.loads(json.dumps(spec.to_json())) == spec.to_json()
    assert spec.check(spec.check_sizes), spec.violated(spec.check_sizes)
    assert spec.valid_local_sizes(spec.check_sizes, *NVIDIA), "no NVIDIA-valid work-group at the check sizes"
    grid = spec.size_grid()
    assert len(grid) >= 3
    assert all(spec.launch_bytes(p) <= min(MEM_CAP, MAX_LAUNCH_BYTES) for p in grid)
    assert ("double" in spec.source) == ("cl_khr_fp64" in spec.source)
    if spec.make_inputs is not None:  # structured inputs keep gathers and lengths in range
        sizes = spec.check_sizes
        made = spec.make_inputs(np.random.default_rng(1), sizes)
        counts = spec.buffer_counts(sizes)
        for name, arr in made.items():
            assert arr.size == counts[name]
            if name.startswith("idx"):
                assert arr.min() >= 0 and arr.max() < sizes["T"]
            if name.startswith("lens"):
                assert arr.min() >= 0 and arr.max() <= sizes["K"]
            if name.startswith("sgn"):
                assert (arr > 0).sum() * 2 == arr.size


def test_sizes_span_decades_and_plan():
    limits = DeviceLimits(132, 1024, (1024, 1024, 64), 80 * 2**30, 140 * 2**30)  # an H200
    for spec in SPECS[:40]:
        grid = spec.size_grid()
        items = [np.prod([int(v) for v in spec.global_size_of(p)]) for p in grid]
        assert max(items) / min(items) >= 16
        assert sample_launches(spec, limits, max_count=8)


def test_all_parse_without_errors():
    for spec in SPECS:
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_id}.cl")
        assert not unit.errors, (spec.kernel_id, unit.errors[:3])
        kernel = unit.function(spec.kernel_name)
        assert kernel is not None and kernel.is_kernel
        assert [p.name for p in kernel.params] == [a.name for a in spec.args]


def test_static_counts_fully_known():
    data_dependent = 0
    for spec in SPECS:
        unit = parse_source(spec.source, "opencl")
        analysis = analyze(unit.function(spec.kernel_name), unit)
        names = {a.name for a in spec.args if a.kind == "scalar"}
        free = {str(sym) for expr in analysis.counts.values() for sym in getattr(expr, "free_symbols", ())}
        unknown = {f for f in free if f not in names and not ALLOWED.match(f)}
        if RECIPES[spec.kernel_id].loops == "data":
            assert any(f.startswith("trip_") for f in unknown), spec.kernel_id  # the test can tell
            data_dependent += 1
        else:
            assert not unknown, (spec.kernel_id, unknown)
    assert 0 < data_dependent < COUNT / 4


def _pick_sample() -> list:
    """12 kernels covering the idioms (greedy over the first kernels' recipes)."""
    wanted = [lambda r: r.loops == "tile", lambda r: r.reduce, lambda r: r.private > 0,
              lambda r: r.loops == "triangular", lambda r: r.loops == "data", lambda r: r.mode == "gridstride",
              lambda r: r.mode == "guarded", lambda r: r.width >= 4, lambda r: r.compute == "int" and r.atomic,
              lambda r: r.diverge == "data" and r.compute == "fp64", lambda r: any(p == "stencil" for _, p in r.inputs),
              lambda r: r.helper and r.macro and r.diverge == "lane" and r.dims > 1]
    chosen = []
    for test in wanted:
        spec = next(s for s in SPECS if test(RECIPES[s.kernel_id]) and s not in chosen)
        chosen.append(spec)
    return chosen


SAMPLE = _pick_sample()


@pytest.fixture(scope="module")
def pocl():
    import pyopencl as cl

    from kgraph.data.instrumented import default_context

    try:
        ctx = default_context()
    except MeasurementError as exc:  # pragma: no cover
        pytest.skip(str(exc))
    return ctx, cl.CommandQueue(ctx)


@pytest.mark.parametrize("spec", SAMPLE, ids=lambda s: f"{s.kernel_id}-{s.family}")
def test_pocl_matches_reference_and_static_counts(spec, pocl):
    from kgraph.data.instrumented import count_launch

    ctx, queue = pocl
    sizes = spec.check_sizes
    local = spec.valid_local_sizes(sizes, queue.device.max_work_group_size, queue.device.max_work_item_sizes)[0]
    inputs, outputs = run_spec(spec, ctx, queue, sizes, local=local)
    ok, err = compare(spec, inputs, outputs, sizes)
    assert ok, f"{spec.kernel_id}: max abs error {err} (atol {spec.atol}, rtol {spec.rtol})"
    scalars = spec.scalar_values(sizes)
    gsize = spec.global_size_of(sizes)
    work = count_launch(spec, None, gsize, local, {**spec.inputs(np.random.default_rng(0), sizes), **scalars}, ctx)
    assert work.exact, work.warnings
    env = {**{k: float(v) for k, v in sizes.items()}, **{k: float(v) for k, v in scalars.items()}}
    if RECIPES[spec.kernel_id].loops == "data":
        with pytest.raises(Exception, match="trip_"):
            static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
        return
    static = static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
    for name in COUNTER_NAMES:
        assert static[name] == getattr(work, name), f"{spec.kernel_id}: {name} static {static[name]} != {getattr(work, name)}"


def test_wrong_result_is_caught(pocl):
    ctx, queue = pocl
    spec = SAMPLE[0]
    honest = spec.reference
    spec_off = dataclasses.replace(spec, reference=lambda inp, sz: {
        k: v + (1 if v.dtype.kind in "iu" else 0.5) for k, v in honest(inp, sz).items()})
    ok, err = check_spec(spec_off, ctx, queue)
    assert not ok and err >= 0.5


def test_reference_catches_generator_defects():
    i, buf = ir.Var("i", ir.INT), "out"
    params = [ir.Param("n", ir.INT), ir.Param("tab", ir.FLOAT, "buffer"), ir.Param(buf, ir.FLOAT, "buffer", role="out")]
    gid = ir.WorkItem("get_global_id", 0)
    gather = ir.Kernel("k", params, [ir.Decl(i, gid, const=True),
                                     ir.Assign(ir.Load(buf, i, ir.FLOAT), "=", ir.Load("tab", ir.binop("*", i, ir.Const(2, ir.INT)), ir.FLOAT))])
    arrays = {"tab": np.ones(8, np.float32), buf: np.zeros(8, np.float32)}
    with pytest.raises(ReferenceError_, match="outside"):
        run_kernel(gather, [8], [1], arrays, {"n": 8})
    race = ir.Kernel("k", params, [ir.Assign(ir.Load(buf, ir.Const(0, ir.INT), ir.FLOAT), "=", ir.Const(1.0, ir.FLOAT))])
    with pytest.raises(ReferenceError_, match="two work-items"):
        run_kernel(race, [8], [1], arrays, {"n": 8})
    ok = ir.Kernel("k", params, [ir.Decl(i, gid, const=True),
                                 ir.Assign(ir.Load(buf, i, ir.FLOAT), "=", ir.Load("tab", i, ir.FLOAT))])
    assert run_kernel(ok, [8], [1], arrays, {"n": 8})[buf].tolist() == [1.0] * 8


def _shingles(text: str, k: int = 4) -> set:
    tokens = re.findall(r"[A-Za-z_]\w*|\d+\.?\d*f?|\S", re.sub(r"//.*", "", text))
    return {tuple(tokens[i:i + k]) for i in range(len(tokens) - k + 1)}


def test_unlike_the_corpus_templates():
    corpus = [_shingles(s.source) for s in all_specs()]
    for spec in SPECS[:80]:
        mine = _shingles(spec.source)
        best = max(len(mine & c) / len(mine | c) for c in corpus)
        assert best < 0.5, f"{spec.kernel_id} is {best:.2f} similar to a corpus kernel"
        assert len(RECIPES[spec.kernel_id].idioms()) >= 4, RECIPES[spec.kernel_id]
