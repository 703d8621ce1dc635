"""Loops of data-dependent trip count (generator seeds from EARLY_EXIT_FROM_SEED on): a search left at its first hit,
a convergence loop, a fix-up loop and a CSR segment loop; their references match PoCL, a wrong exit condition is
caught, and earlier seeds' kernels are unchanged."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re

import numpy as np
import pytest

from kgraph.analysis import analyze
from kgraph.data.corpus.check import compare, run_spec
from kgraph.data.generator import generate, ir, specs
from kgraph.data.generator.early_inputs import early_input, first_hits
from kgraph.data.generator.interpreter import run_kernel
from kgraph.data.generator.recipe import EARLY_EXIT_FROM_SEED, EXIT_DETAILS
from kgraph.data.harness.counts import static_counts
from kgraph.instrument import COUNTER_NAMES
from kgraph.parsers import parse_source
from test_generator import pocl  # noqa: F401 - the PoCL context and queue fixture
from test_generator_loaded_bins import checked_launch

SEED = EARLY_EXIT_FROM_SEED
SPECS = specs(200, SEED)
RECIPES = {s.kernel_id: generate(SEED, int(s.kernel_id.split(".")[-1]))[1] for s in SPECS}
EARLY = [s for s in SPECS if RECIPES[s.kernel_id].early_exit]
#: sha1 of the sources and of the spec JSON of specs(120, seed), and of the structured inputs of specs(40, seed) at
#: their check sizes, before the idiom existed (session 19's generator)
BEFORE = {30: ("3191eb225bfb7b940aced4f71dfc0556f144e3c6", "b8e51da8ce4bfaf8a637fcaad8e7acabba5de8f1",
               "4a3447602742be7692bcb0cc44fd84d807138c3d"),
          31: ("6f88e6aa7ac4c893922e3e536b18cc25bb256a09", "c4edf681fe0f5c1371825e3c32046f5ef57471c5",
               "533f66fee47d15322d48e16fa7147505b2815576"),
          32: ("329237069b9b803d77eccf21d51d6ebc90f9353a", "5c6b9bdc2502f34aa08d4ff6e461627cb4e53ff7",
               "1ec308a46b29b99fb6de731d97f63d7e03aebe41"),
          33: ("94752b0a380fb420728b21f2f94984bcc429585c", "fb5eb91720e168f541890da1b1fbfee9d2a834ab",
               "12866f6589ace9f4c0f52c274f00e73263515a4d")}


@pytest.mark.parametrize("seed", sorted(BEFORE))
def test_earlier_seeds_keep_their_kernels(seed):
    source, spec_json, inputs = hashlib.sha1(), hashlib.sha1(), hashlib.sha1()
    listed = specs(120, seed)
    for spec in listed:
        source.update(spec.source.encode())
        spec_json.update(json.dumps(spec.to_json(), sort_keys=True).encode())
    for spec in listed[:40]:
        made = spec.make_inputs(np.random.default_rng(0), spec.check_sizes) if spec.make_inputs else {}
        for name in sorted(made):
            inputs.update(name.encode())
            inputs.update(np.ascontiguousarray(made[name]).tobytes())
    assert (source.hexdigest(), spec_json.hexdigest(), inputs.hexdigest()) == BEFORE[seed]
    assert not any("early_exit" in s.variant for s in listed)


def test_each_idiom_drawn_from_its_seed():
    kinds = [RECIPES[s.kernel_id].early_exit for s in SPECS]
    assert all(kinds.count(k) >= 5 for k in EXIT_DETAILS), kinds
    assert 0.25 <= len(EARLY) / len(SPECS) <= 0.35
    for spec in EARLY:
        r = RECIPES[spec.kernel_id]
        assert spec.variant["early_exit"] == r.early_exit and r.exit_detail in EXIT_DETAILS[r.early_exit]
        assert "early-exit" in r.idioms() and r.data_trips
        printed = {"search": "break;" if r.exit_detail.startswith("break") else "&& (hit < 0)",
                   "converge": "while ((it < max_iter) && ", "fixup": "} while (rem >= L);" if
                   r.exit_detail.startswith("do") else "while (rem >= L) {", "segment": "; s < off0["}
        assert printed[r.early_exit] in spec.source, spec.kernel_id
    assert not any(s.variant.get("early_exit") for s in specs(60, SEED - 1))


def test_spec_invariants_and_inputs_in_range():
    from kgraph.data.corpus.spec import MAX_LAUNCH_BYTES
    from kgraph.data.generator.launch import MEM_CAP

    for spec in EARLY:
        sizes = spec.check_sizes
        assert spec.check(sizes), (spec.kernel_id, spec.violated(sizes))
        assert spec.valid_local_sizes(sizes, 1024, [1024, 1024, 64]), spec.kernel_id
        grid = spec.size_grid()
        assert len(grid) >= 3 and all(spec.launch_bytes(p) <= min(MEM_CAP, MAX_LAUNCH_BYTES) for p in grid)
        made, counts = spec.make_inputs(np.random.default_rng(1), sizes), spec.buffer_counts(sizes)
        assert all(arr.size == counts[name] for name, arr in made.items()), spec.kernel_id
        if "off0" in made:  # CSR offsets: ascending from 0 to every entry of val
            assert made["off0"][0] == 0 and np.all(np.diff(made["off0"]) >= 0) and made["off0"][-1] == counts["val0"]
        if "key0" in made and RECIPES[spec.kernel_id].early_exit == "fixup":  # wraps: aux[rem] stays in range
            assert made["key0"].min() >= 0 and made["key0"].max() < counts["aux0"]


def test_a_campaign_can_keep_them_alone(monkeypatch):
    from kgraph.data.generator import specs_from_env

    monkeypatch.setenv("KGRAPH_GENERATOR_COUNT", "80")
    monkeypatch.setenv("KGRAPH_GENERATOR_SEED", str(SEED))
    monkeypatch.setenv("KGRAPH_GENERATOR_WITH", "early_exit")
    assert [s.kernel_id for s in specs_from_env()] == [s.kernel_id for s in EARLY if int(s.kernel_id.split(".")[-1]) < 80]


def test_parse_and_the_analysis_cannot_count_them():
    """Zero parse errors; every early-exit loop is a ``trip_<line>`` for the analysis, but a ``for`` left by
    ``break``, which it counts at its bound (an upper bound, noted)."""
    for spec in EARLY:
        unit = parse_source(spec.source, "opencl", filename=f"{spec.kernel_id}.cl")
        assert not unit.errors, (spec.kernel_id, unit.errors[:3])
        analysis = analyze(unit.function(spec.kernel_name), unit)
        r = RECIPES[spec.kernel_id]
        opaque = [lp for lp in analysis.loops if not lp.symbolic]
        if r.exit_detail.startswith("break"):
            assert any("break" in lp.note and lp.symbolic for lp in analysis.loops), spec.kernel_id
            assert len(opaque) == (r.loops == "data"), spec.kernel_id
        else:
            assert len(opaque) == 1 + (r.loops == "data"), (spec.kernel_id, [lp.note for lp in analysis.loops])


def test_inputs_spread_the_trip_counts():
    rng = np.random.default_rng(7)
    rows, M = 4096, 256
    mean = {s: first_hits(rng, rows, M, s) for s in ("early", "uniform", "rare")}
    assert mean["early"].mean() < M / 8 and 0.4 * M < mean["uniform"].mean() < 0.6 * M
    assert 0.85 < np.mean(mean["rare"] == M) < 0.95
    for dtype, thr, sure in ((np.dtype("float32"), 0.5, 0.75), (np.dtype("uint32"), 50, 60)):
        hay = early_input(rng, "hits-uniform-plane", rows * M, M, dtype).reshape(M, rows)  # element e at e*cells + gi
        hit = hay > thr
        first = np.where(hit.any(0), hit.argmax(0), M)
        assert first.max() == M - 1 and first.min() == 0
        assert np.all(hay[first, np.arange(rows)] >= sure)  # no rounding moves a hit across the threshold
    keys = early_input(rng, "log2-uniform", 4096, 16, np.dtype("uint32")).astype(np.int64)
    steps = np.zeros_like(keys)
    x = keys.copy()
    for _ in range(400):  # Collatz stopping times of the keys: spread from 0 to hundreds
        live = x != 1
        x = np.where(live, np.where(x & 1, 3 * x + 1, x >> 1), x)
        steps += live
    assert steps.min() == 0 and steps.max() > 150 and np.all(x == 1)
    wraps = early_input(rng, "wraps-few", 4096, 16, np.dtype("int32")) // 16
    assert wraps.min() == 0 and wraps.max() <= 7 and 0.8 < wraps.mean() < 1.2
    off = early_input(rng, "offsets-skewed", 4097, 4, np.dtype("int32"))
    lengths = np.diff(off)
    assert off[0] == 0 and off[-1] == 4096 * 4 and lengths.min() >= 0 and lengths.max() > 20 * 4


def test_reference_breaks_and_loops_while():
    """The interpreter: ``break`` leaves only its own loop and skips the rest of the iteration; ``do`` runs once."""
    i, e, x, acc = ir.Var("i", ir.INT), ir.Var("e", ir.INT), ir.Var("x", ir.INT), ir.Var("acc", ir.INT)
    one = ir.Const(1, ir.INT)
    params = [ir.Param("out", ir.INT, "buffer", role="out")]
    search = ir.For(e, ir.Const(0, ir.INT), "<", ir.Const(10, ir.INT), "+=", one,
                    (ir.If(ir.binop("==", e, i), (ir.Break(),)), ir.Assign(acc, "+=", one)))
    halve = ir.While(ir.binop(">", x, one), (ir.Assign(x, "=", ir.binop(">>", x, one)), ir.Assign(acc, "+=", one)),
                     do=True)
    body = [ir.Decl(i, ir.WorkItem("get_global_id", 0), const=True), ir.Decl(acc, ir.Const(0, ir.INT)), search,
            ir.Decl(x, i), halve, ir.Assign(ir.Load("out", i, ir.INT), "=", acc)]
    out = run_kernel(ir.Kernel("k", params, body), [12], [4], {"out": np.zeros(12, np.int32)}, {})["out"]
    want = [min(g, 10) + max(1, int(g).bit_length() - 1 if g > 1 else 1) for g in range(12)]
    assert out.tolist() == want


def _pick(kind: str, detail: str):
    return next(s for s in EARLY if RECIPES[s.kernel_id].early_exit == kind and RECIPES[s.kernel_id].loops != "data"
                and RECIPES[s.kernel_id].exit_detail.startswith(detail))


CASES = [("search", "break"), ("search", "flag"), ("converge", "collatz"), ("converge", "newton"),
         ("converge", "halve"), ("fixup", "while"), ("fixup", "do"), ("segment", "skewed"), ("segment", "even")]


def _launch(spec, queue):
    sizes = spec.check_sizes
    local = spec.valid_local_sizes(sizes, queue.device.max_work_group_size, queue.device.max_work_item_sizes)[0]
    return sizes, local


@pytest.mark.parametrize("kind,detail", CASES, ids=[f"{k}-{d}" for k, d in CASES])
def test_pocl_matches_reference_and_counts(kind, detail, pocl):
    """The reference matches PoCL; counts: the instrumented run is exact, the static counts hold a ``trip_``
    symbol (as for the ``data`` loop kind) or, for a search left by ``break``, bound the instrumented ones."""
    spec = _pick(kind, detail)
    work, env, gsize, local = checked_launch(spec, pocl, spec.check_sizes)
    if detail != "break":
        with pytest.raises(Exception, match="trip_"):
            static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
        return
    static = static_counts(spec.source, "opencl", spec.kernel_name, env, gsize, local)
    assert all(static[name] >= getattr(work, name) for name in COUNTER_NAMES), spec.kernel_id
    assert static["global_load_bytes"] > work.global_load_bytes  # the searches that stopped early


#: one token of each idiom's exit condition changed
MUTATIONS = {"search": (r"hv > ", "hv < "), "converge": (r"\(st != 1u\)", "(st != 2u)"),
             "fixup": (r"rem >= L\)", "rem >= 0)"), "segment": (r"(s < off0\[\w+ \+ )1\]", r"\g<1>0]")}


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_a_wrong_exit_condition_is_caught(kind, pocl):
    spec, (ctx, queue) = _pick(kind, "collatz" if kind == "converge" else ""), pocl
    pattern, replacement = MUTATIONS[kind]
    source, n = re.subn(pattern, replacement, spec.source)
    assert n == 1, (spec.kernel_id, n)
    wrong = dataclasses.replace(spec, source=source)
    sizes, local = _launch(wrong, queue)
    inputs, outputs = run_spec(wrong, ctx, queue, sizes, local=local)
    ok, err = compare(wrong, inputs, outputs, sizes)
    assert not ok, f"{spec.kernel_id}: the mutated exit condition went unnoticed (error {err})"
