"""Atomics on a bin loaded from memory (generator seeds from LOADED_BINS_FROM_SEED on): what the analysis cannot
bound, with contention set by the data; earlier seeds' kernels unchanged."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from kgraph.analysis import analyze
from kgraph.analysis.traffic import TRAFFIC_KEYS, traffic_exprs
from kgraph.data.corpus.check import compare, run_spec
from kgraph.data.generator import generate, specs
from kgraph.data.generator.inputs import SKEW
from kgraph.data.generator.recipe import LOADED_BINS_FROM_SEED, SKEWED_BINS_FROM_SEED
from kgraph.data.harness.counts import static_counts
from kgraph.instrument import COUNTER_NAMES
from kgraph.parsers import parse_source
from test_generator import pocl  # noqa: F401 - the PoCL context and queue fixture

SEED = LOADED_BINS_FROM_SEED
SPECS = specs(160, SEED)
LOADED = {s.kernel_id: generate(SEED, int(s.kernel_id.split(".")[-1]))[1].atomic_target for s in SPECS}
#: sha1 of the sources of specs(120, seed) before the idiom existed (session 17's generator; 32: before skewed bins)
BEFORE = {0: "2f7841d86114b9277dd6df0bb993eb665d22ccc8", 31: "6f88e6aa7ac4c893922e3e536b18cc25bb256a09",
          32: "329237069b9b803d77eccf21d51d6ebc90f9353a"}


@pytest.mark.parametrize("seed", sorted(BEFORE))
def test_earlier_seeds_keep_their_kernels(seed):
    h = hashlib.sha1()
    for spec in specs(120, seed):
        h.update(spec.source.encode())
    assert h.hexdigest() == BEFORE[seed]


def test_both_targets_drawn_and_printed_as_loads():
    kinds = {k: [i for i, t in LOADED.items() if t == k] for k in ("gathered", "runs")}
    assert all(len(ids) >= 3 for ids in kinds.values()), kinds
    for spec in SPECS:
        if LOADED[spec.kernel_id]:
            assert spec.variant["atomic_target"] == LOADED[spec.kernel_id] and "&hist0[bin0[" in spec.source
            assert "atomic-loaded" in generate(SEED, int(spec.kernel_id.split(".")[-1]))[1].idioms()
        else:
            assert "atomic_target" not in spec.variant and "bin0" not in spec.source


def test_sorted_bins_share_neighbours():
    spec = next(s for s in SPECS if LOADED[s.kernel_id] == "runs")
    sizes = {**spec.check_sizes, "B": 32}
    bins = spec.inputs(np.random.default_rng(3), sizes)["bin0"]
    assert bins.min() >= 0 and bins.max() < 32 and np.all(np.diff(bins) >= 0)


SKEWED_SPECS = specs(200, SKEWED_BINS_FROM_SEED)


def _target(spec) -> str:
    seed, number = (int(p) for p in spec.kernel_id.split(".")[1:])
    return generate(seed, number)[1].atomic_target


def _pick(kind: str):
    pool = SKEWED_SPECS if kind == "skewed" else SPECS
    return next(s for s in pool if _target(s) == kind and generate(*(int(p) for p in s.kernel_id.split(".")[1:]))[1].loops != "data")


def test_skewed_bins_only_from_their_seed_and_hubs_take_half():
    assert "skewed" not in LOADED.values()
    drawn = [_target(s) for s in SKEWED_SPECS]
    assert all(drawn.count(k) >= 3 for k in ("gathered", "runs", "skewed")), drawn
    spec = _pick("skewed")
    bins = spec.inputs(np.random.default_rng(5), {**spec.check_sizes, "B": 1024})["bin0"]
    assert bins.min() >= 0 and bins.max() < 1024 and np.any(np.diff(bins) < 0)  # in range, not sorted
    hubs = np.mean(bins < 1024 // 2**SKEW)  # the lowest B / 2**SKEW bins take about half of the updates
    assert 0.4 < hubs < 0.6, hubs


def checked_launch(spec, pocl, sizes):
    """Run ``spec`` at ``sizes`` on PoCL against its numpy reference, then count it by an instrumented run (exact);
    returns ``(instrumented counts, the sizes and scalars as floats, global size, local size)``."""
    from kgraph.data.instrumented import count_launch

    ctx, queue = pocl
    local = spec.valid_local_sizes(sizes, queue.device.max_work_group_size, queue.device.max_work_item_sizes)[0]
    inputs, outputs = run_spec(spec, ctx, queue, sizes, local=local)
    ok, err = compare(spec, inputs, outputs, sizes)
    assert ok, f"{spec.kernel_id}: max abs error {err} (atol {spec.atol}, rtol {spec.rtol})"
    scalars, gsize = spec.scalar_values(sizes), spec.global_size_of(sizes)
    work = count_launch(spec, None, gsize, local, {**spec.inputs(np.random.default_rng(0), sizes), **scalars}, ctx)
    assert work.exact, work.warnings
    env = {**{k: float(v) for k, v in sizes.items()}, **{k: float(v) for k, v in scalars.items()}}
    return work, env, gsize, local


@pytest.mark.parametrize("kind", ["gathered", "runs", "skewed"])
def test_pocl_matches_reference_and_static_counts(kind, pocl):
    spec = _pick(kind)
    work, env, gsize, local = checked_launch(spec, pocl, {**spec.check_sizes, "B": 32})
    static = static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
    for name in COUNTER_NAMES:
        assert static[name] == getattr(work, name), f"{spec.kernel_id}: {name}"
    unit = parse_source(spec.source, "opencl")
    traffic = dict(zip(TRAFFIC_KEYS, traffic_exprs(analyze(unit.function(spec.kernel_name), unit))))
    assert traffic["global_atomics"] != 0  # counted, while a loaded bin adds no depth: the analysis cannot bound it
    assert traffic["global_atomic_depth"] == 0


def test_a_campaign_can_keep_the_loaded_bins_alone(monkeypatch):
    from kgraph.data.generator import specs_from_env

    monkeypatch.setenv("KGRAPH_GENERATOR_COUNT", str(len(SPECS)))
    monkeypatch.setenv("KGRAPH_GENERATOR_SEED", str(SEED))
    monkeypatch.setenv("KGRAPH_GENERATOR_WITH", "atomic_target")
    picked = [s.kernel_id for s in specs_from_env()]
    assert picked == [k for k, target in LOADED.items() if target]  # the unfiltered list's ids, in order
    monkeypatch.setenv("KGRAPH_GENERATOR_WITH", "atomic_target, reduce")
    assert set(s.kernel_id for s in specs_from_env()) < set(picked)
