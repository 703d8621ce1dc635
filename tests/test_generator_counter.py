"""Atomics on one counter (generator seeds from COUNTER_FROM_SEED on): ``hist[0]``, an address every lane of a warp
shares (what NVIDIA's compiler applies once per warp); earlier seeds' kernels unchanged."""
from __future__ import annotations

import hashlib

from kgraph.analysis import analyze
from kgraph.analysis.atomics import warp_uniform
from kgraph.data.generator import generate, specs
from kgraph.data.generator.recipe import COUNTER_FROM_SEED
from kgraph.data.harness.counts import static_counts
from kgraph.instrument import COUNTER_NAMES
from kgraph.parsers import parse_source
from test_generator import pocl  # noqa: F401 - the PoCL context and queue fixture
from test_generator_loaded_bins import checked_launch

SPECS = specs(400, COUNTER_FROM_SEED)
TARGET = {s.kernel_id: generate(*(int(p) for p in s.kernel_id.split(".")[1:]))[1].atomic_target for s in SPECS}
#: sha1 of the sources of specs(120, seed) before the counter existed (session 22's generator)
BEFORE = {33: "94752b0a380fb420728b21f2f94984bcc429585c", 34: "abe379bc22e245d8851cb62d866829cb6e899bdb"}


def test_earlier_seeds_keep_their_kernels():
    for seed, digest in BEFORE.items():
        h = hashlib.sha1()
        for spec in specs(120, seed):
            h.update(spec.source.encode())
        assert h.hexdigest() == digest, seed


def test_counters_drawn_beside_the_other_targets():
    drawn = list(TARGET.values())
    assert drawn.count("counter") >= 10 and all(drawn.count(k) >= 5 for k in ("gathered", "runs", "skewed")), drawn
    for spec in SPECS:
        idioms = generate(*(int(p) for p in spec.kernel_id.split(".")[1:]))[1].idioms()
        if TARGET[spec.kernel_id] == "counter":
            assert spec.variant["atomic_target"] == "counter" and "&hist0[0]" in spec.source
            assert "atomic-counter" in idioms and "atomic-loaded" not in idioms and "bin0" not in spec.source
        else:
            assert "atomic-counter" not in idioms


def test_a_counter_is_warp_uniform_and_counted_exactly(pocl):
    spec = next(s for s in SPECS if TARGET[s.kernel_id] == "counter"
                and generate(*(int(p) for p in s.kernel_id.split(".")[1:]))[1].loops != "data")
    work, env, gsize, local = checked_launch(spec, pocl, {**spec.check_sizes, "B": 32})
    static = static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
    for name in COUNTER_NAMES:
        assert static[name] == getattr(work, name), f"{spec.kernel_id}: {name}"
    unit = parse_source(spec.source, "opencl")
    atomics = [a for a in analyze(unit.function(spec.kernel_name), unit).accesses if a.kind == "atomic"]
    assert atomics and all(warp_uniform(a.index_expr, a.context) for a in atomics)


def test_a_campaign_can_keep_the_counters_alone(monkeypatch):
    from kgraph.data.generator import specs_from_env

    monkeypatch.setenv("KGRAPH_GENERATOR_COUNT", str(len(SPECS)))
    monkeypatch.setenv("KGRAPH_GENERATOR_SEED", str(COUNTER_FROM_SEED))
    monkeypatch.setenv("KGRAPH_GENERATOR_WITH", "atomic_target=counter")
    assert [s.kernel_id for s in specs_from_env()] == [k for k, t in TARGET.items() if t == "counter"]
