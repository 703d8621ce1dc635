"""Store-only kernels (generator seeds from STORE_ONLY_FROM_SEED on): inputs made from the ids by an integer hash,
no buffer read; earlier seeds' kernels unchanged; each matches its numpy reference on PoCL with static counts equal
to the instrumented ones."""
from __future__ import annotations

import hashlib

import pytest

from kgraph.data.generator import generate, specs
from kgraph.data.generator.recipe import STORE_ONLY_FROM_SEED
from kgraph.data.harness.counts import static_counts
from kgraph.instrument import COUNTER_NAMES
from test_generator import pocl  # noqa: F401 - the PoCL context and queue fixture
from test_generator_loaded_bins import checked_launch

SPECS = specs(120, STORE_ONLY_FROM_SEED)
RECIPES = {s.kernel_id: generate(*(int(p) for p in s.kernel_id.split(".")[1:]))[1] for s in SPECS}
STORE_ONLY = [s for s in SPECS if RECIPES[s.kernel_id].store_only]
#: sha1 of the sources of specs(120, seed) before store-only kernels existed (session 26's generator)
BEFORE = {35: "7fceacc8bf37bd400b4c35b2686827818ea9e44a"}


def _digest(seed: int) -> str:
    h = hashlib.sha1()
    for spec in specs(120, seed):
        h.update(spec.source.encode())
    return h.hexdigest()


def test_earlier_seeds_keep_their_kernels():
    for seed, digest in BEFORE.items():
        assert _digest(seed) == digest, seed


def test_store_only_kernels_read_no_buffer():
    assert 40 <= len(STORE_ONLY) <= 90  # about 60% of the kernels whose loops read no memory
    structures = {RECIPES[s.kernel_id].structure for s in STORE_ONLY}
    assert {"flat", "loop", "nest", "regblock", "wgreduce"} <= structures, structures
    for spec in STORE_ONLY:
        buffers = [a for a in spec.args if a.kind == "buffer"]
        assert any(a.role == "out" for a in buffers), spec.kernel_id
        assert all(a.role == "out" or f"__constant {a.dtype.replace('32', '').replace('float64', 'double')}* {a.name}"
                   in spec.source for a in buffers), spec.kernel_id  # read only: a __constant table
        assert spec.variant["store_only"] is True and spec.family.endswith("-ids")
        assert "__global const" not in spec.source and "lens" not in spec.source
    others = [s for s in SPECS if not RECIPES[s.kernel_id].store_only]
    assert others and all("store_only" not in s.variant for s in others)


def test_a_campaign_can_keep_them_alone(monkeypatch):
    from kgraph.data.generator import specs_from_env

    monkeypatch.setenv("KGRAPH_GENERATOR_COUNT", str(len(SPECS)))
    monkeypatch.setenv("KGRAPH_GENERATOR_SEED", str(STORE_ONLY_FROM_SEED))
    monkeypatch.setenv("KGRAPH_GENERATOR_WITH", "store_only")
    assert [s.kernel_id for s in specs_from_env()] == [s.kernel_id for s in STORE_ONLY]


@pytest.mark.parametrize("structure", ["flat", "loop", "regblock"])
def test_pocl_matches_reference_and_static_counts(structure, pocl):
    spec = next(s for s in STORE_ONLY if RECIPES[s.kernel_id].structure == structure)
    work, env, gsize, local = checked_launch(spec, pocl, dict(spec.check_sizes))
    assert work.global_store_bytes > 0
    assert work.global_load_bytes == 0 or "__constant" in spec.source  # a __constant table's reads count as loads
    static = static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
    for name in COUNTER_NAMES:
        assert static[name] == getattr(work, name), f"{spec.kernel_id}: {name}"
