"""The static footprint of many launches at once (``StaticFootprint.evaluate_many``, numpy over the launches
of a kernel) gives the per-launch results of ``StaticFootprint.evaluate``, every field."""
from __future__ import annotations

import random

import numpy as np
import pytest

import kgraph
from kgraph.analysis.footprint import BATCH_MIN, static_footprint
from kgraph.models.launches import kernel_footprint
from kgraph.parsers import parse_source
from tests.test_footprint import CLAMPED, SGEMM, STENCIL, STRIDED, TRANSPOSE


def _both(fp, envs: list[tuple], monkeypatch) -> tuple[list, list, int]:
    """(per-launch results, batched results, launches the batch left to the per-launch path) of ``envs``
    ``(args, global, local)`` of one kernel."""
    one = [fp.evaluate({**a, "global_size": g, "local_size": l}).to_dict() for a, g, l in envs]
    names, calls, evaluate = list(envs[0][0]), [], fp.evaluate
    with monkeypatch.context() as m:
        m.setattr(fp, "evaluate", lambda env: calls.append(env) or evaluate(env))
        many = fp.evaluate_many({n: np.array([a[n] for a, _, _ in envs]) for n in names},
                                [g for _, g, _ in envs], [l for _, _, l in envs])
    return one, [r.to_dict() for r in many], len(calls)


def _corpus_launches(spec, rng: random.Random) -> list[tuple]:
    """Launches of a corpus kernel: its check and grid sizes with valid local sizes, the scalars as
    given, perturbed (guards that cut), and zero (empty ranges)."""
    out = []
    for sizes in [dict(spec.check_sizes)] + spec.size_grid()[:6]:
        g = [int(v) for v in spec.global_size_of(sizes)]
        for local in spec.local_sizes[:2]:
            if len(local) != len(g) or any(a % b for a, b in zip(g, local)):
                continue
            args = {k: float(v) for k, v in spec.scalar_values(sizes).items()}
            out.append((args, g, list(local)))
            out.append(({k: v + rng.choice([-3, -1, 1, 7]) if v.is_integer() and abs(v) > 8 else v
                         for k, v in args.items()}, g, list(local)))
            out.append(({k: 0.0 if v.is_integer() else v for k, v in args.items()}, g, list(local)))
    return out


def test_batch_equals_per_launch_on_corpus_kernels(monkeypatch):
    from kgraph.data.corpus import all_specs

    rng, seen, compared, alone = random.Random(0), set(), 0, 0
    for spec in all_specs()[::7]:
        if (spec.source, spec.kernel_name) in seen:
            continue
        seen.add((spec.source, spec.kernel_name))
        graph = next(g for g in kgraph.from_source(spec.source, spec.lang) if g.name == spec.kernel_name)
        fp = kernel_footprint(graph)
        envs = _corpus_launches(spec, rng)
        if fp is None or len(envs) < BATCH_MIN:
            continue
        one, many, calls = _both(fp, envs, monkeypatch)
        assert one == many, spec.kernel_name
        compared, alone = compared + len(envs), alone + calls
    assert compared > 1000 and alone < 0.05 * compared


@pytest.mark.parametrize("src, envs", [
    (SGEMM, [({"M": m, "N": nn, "K": k}, [g0, g1], [16, 16]) for m, nn, k, g0, g1 in
             [(64, 64, 64, 64, 64), (60, 70, 5, 64, 80), (0, 64, 64, 64, 64), (1000, 64, 0, 64, 64)]]),
    (STENCIL, [({"nx": nx, "ny": ny}, [64, 32], [16, 8]) for nx, ny in [(64, 32), (1, 1), (3, 40), (100, 2), (65, 33)]]),
    (TRANSPOSE, [({"rows": r, "cols": c}, [g0, g1], [8, 8]) for r, c, g0, g1 in
                 [(64, 64, 64, 64), (8, 128, 128, 8), (3, 5, 8, 8), (2 ** 40, 8, 8, 8)]]),
    (STRIDED, [({"n": n}, [g], [l]) for n, g, l in [(64, 64, 64), (65, 128, 64), (0, 4, 4), (7, 8, 8),
                                                     (8, 2 ** 55, 8)]]),
    (CLAMPED, [({"W": w, "H": h}, [g0, g1], [4, 4]) for w, h, g0, g1 in
               [(16, 8, 16, 8), (16, 8, 8, 4), (40, 30, 32, 32), (5, 3, 16, 16), (1, 1, 4, 4)]]),
])
def test_batch_equals_per_launch_on_edge_cases(src, envs, monkeypatch):
    """Guards that cut, empty ranges, clamps, strided unions and numbers past 2^52 (per-launch path)."""
    unit = parse_source(src, "opencl")
    fp = static_footprint(unit.kernels[0], unit)
    envs = [({k: float(v) for k, v in a.items()}, g, l) for a, g, l in envs]
    one, many, calls = _both(fp, envs, monkeypatch)
    assert one == many and calls == sum(max(g) >= 2 ** 52 for _, g, _ in envs)


def test_small_batches_and_sizes_past_int64(monkeypatch):
    """Fewer than ``BATCH_MIN`` launches and sizes no int64 holds give the per-launch results too."""
    unit = parse_source(STRIDED, "opencl")
    fp = static_footprint(unit.kernels[0], unit)
    for envs in ([({"n": 64.0}, [64], [64])], [({"n": 2.0 ** 70}, [2 ** 70], [2 ** 6])] * BATCH_MIN):
        one, many, calls = _both(fp, envs, monkeypatch)
        assert one == many and calls == len(envs)
