"""A program generator of OpenCL kernels over an intermediate form of GPU kernel idioms.

    from kgraph.data.generator import specs
    kernels = specs(3000, seed=0)      # KernelSpecs "gen.0.0" ... "gen.0.2999"

Each kernel is a random combination of idioms (index spaces, loop nests, access patterns,
arithmetic mixes, vector types, local-memory tiles, register blocking, atomics, divergence,
helpers, macros, ``#pragma unroll``, ``__constant`` tables), printed to OpenCL C from an
intermediate form (:mod:`.ir`) whose numpy interpretation (:mod:`.interpreter`) is the spec's
reference. The campaign measures them with
``python -m kgraph.data.harness.campaign --specs kgraph.data.generator:specs``. See docs/GENERATOR.md.
"""
from __future__ import annotations

from kgraph.data.corpus.spec import KernelSpec

from .build import generate

MAX_ATTEMPTS = 20


def specs(count: int = 3000, seed: int = 0) -> list[KernelSpec]:
    """``count`` generated kernels, deterministic from ``seed``, with unique ids and sources.

    Kernel ``n`` does not depend on ``count``: ``specs(10, s)`` is a prefix of ``specs(3000, s)``.

    Args:
        count: how many kernels.
        seed: the list's seed (part of every kernel id, ``gen.<seed>.<n>``).
    """
    out: list[KernelSpec] = []
    seen: set[str] = set()
    for number in range(int(count)):
        for attempt in range(MAX_ATTEMPTS):
            spec = generate(seed, number, attempt)[0]
            if spec.source.replace(spec.kernel_name, "") not in seen:
                break
        seen.add(spec.source.replace(spec.kernel_name, ""))
        out.append(spec)
    return out


__all__ = ["specs", "generate"]


def specs_from_env() -> list[KernelSpec]:
    """:func:`specs` with ``count`` and ``seed`` from ``KGRAPH_GENERATOR_COUNT`` / ``KGRAPH_GENERATOR_SEED``
    (defaults 3000 and 0): a campaign measures a prefix of the generated space with
    ``--specs kgraph.data.generator:specs_from_env`` (its worker processes read the same environment).

    ``KGRAPH_GENERATOR_FAMILIES`` (comma-separated shell patterns on the family, e.g.
    ``generated.regblock-*,generated.tile-*``) keeps the kernels of matching families only: a campaign aimed
    at what a device's data lacks (the Xeon's compute-dense kernels, BENCHMARKS section 38). Ids stay those of
    the unfiltered list, so ``fill-counts`` without the filter finds the same kernels.

    ``KGRAPH_GENERATOR_WITH`` (comma-separated recipe fields, e.g. ``atomic_target``) keeps the kernels whose
    variant has every one of them set: a campaign aimed at one idiom (the atomics on loaded bins, session 18); a field
    given as ``field=value`` (``atomic_target=counter``) must have that value."""
    import fnmatch
    import os

    out = specs(int(os.environ.get("KGRAPH_GENERATOR_COUNT", "3000")), int(os.environ.get("KGRAPH_GENERATOR_SEED", "0")))
    patterns = [p.strip() for p in os.environ.get("KGRAPH_GENERATOR_FAMILIES", "").split(",") if p.strip()]
    fields = [f.strip() for f in os.environ.get("KGRAPH_GENERATOR_WITH", "").split(",") if f.strip()]
    out = [s for s in out if any(fnmatch.fnmatchcase(s.family, p) for p in patterns)] if patterns else out
    def holds(variant: dict, field: str) -> bool:
        name, sep, value = field.partition("=")
        return str(variant.get(name)) == value if sep else bool(variant.get(name))

    return [s for s in out if all(holds(s.variant, f) for f in fields)]
