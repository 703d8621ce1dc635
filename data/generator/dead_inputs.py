"""Generated kernels whose result does not depend on an input they load: identities a compiler folds.

The generator combines loaded values with random operators, and some combinations are identities:
``fmin(fmax(v, c), c)`` is ``c`` for every ``v``, ``(v2 | v0) & v0`` is ``v0``, and a value loaded from a
table may never be used. The compiler removes such loads and the arithmetic that fed them, but the counts
(static or instrumented) count the source's operations, so the row describes work that never ran. The
work-rate check (:mod:`kgraph.data.harness.elided`) catches the extreme cases only: session 17 found such an
identity in 7% of the first 200 kernels of seed 0, most of them well inside the device's peaks.

**The check** (:func:`dead_inputs`): the kernel's numpy reference at its check sizes, then again with one
read-only buffer redrawn; a buffer whose redraw changes no output element is *dead*. It is done twice, on the
harness's inputs (floats in [-1, 1), integers in [0, 100)) and on inputs drawn far wider (floats of magnitude
10^-2..10^2 with either sign, integers over their type's range), the structured buffers that keep a kernel in
range (index, length and sign buffers) as the harness makes them; a buffer is dead only if both find it dead.
The wide draw keeps value-range saturation (``fmax(v1 * v0 * 0.5, 0.5)`` is 0.5 for inputs in [-1, 1), not for
inputs of 10; ``max(v, 2654435769u)`` for integers below 100) from passing for an identity, which a compiler
could not fold; the harness's draw keeps rounding absorption at wide magnitudes (``exp(100) + x``) from passing.
A draw whose outputs are not all finite decides nothing. The check is a sufficient condition for *possible*
folding, not proof of it: an identity that needs more than known-bits reasoning (``(v | (v + odd)) & 1`` is 1) may
survive the compiler. Marking such a kernel costs a little data; keeping a folded one teaches a wrong speed.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import multiprocessing as mp
import re

import numpy as np

#: the message of a marked row (``kgraph dataset mark-elided --dead-inputs``)
DEAD_MESSAGE = "input(s) {names} never change the result (an identity the compiler folds): the counts include their work"


def _wide(inputs: dict, keep: set, rng: np.random.Generator) -> dict:
    """``inputs`` with every array not in ``keep`` redrawn wide: floats of magnitude 10^-2..10^2 with either
    sign, integers over their type's whole range."""
    out = {}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray) and name not in keep and value.dtype.kind == "f":
            magnitude = 10.0 ** rng.uniform(-2.0, 2.0, value.shape)
            out[name] = (np.where(rng.random(value.shape) < 0.5, -1.0, 1.0) * magnitude).astype(value.dtype)
        elif isinstance(value, np.ndarray) and name not in keep and value.dtype.kind in "iu":
            info = np.iinfo(value.dtype)
            out[name] = rng.integers(int(info.min), int(info.max), value.shape, endpoint=True, dtype=value.dtype)
        else:
            out[name] = value
    return out


def _finite(outputs: dict) -> bool:
    return all(np.all(np.isfinite(v)) for v in outputs.values() if np.asarray(v).dtype.kind == "f")


def _unchanged(spec, base: dict, other: dict, sizes: dict, structured: set) -> set | None:
    """The buffers whose redraw (``other``'s values) leaves every output of ``base`` as it is; None when the
    outputs are not all finite (a draw that decides nothing)."""
    from kgraph.data.corpus.check import reference_outputs

    expected = reference_outputs(spec, base, sizes)
    if not _finite(expected):
        return None
    out = set()
    for name, value in base.items():
        if not isinstance(value, np.ndarray) or name in structured or name in expected:
            continue
        got = reference_outputs(spec, {**base, name: other[name]}, sizes)
        if _finite(got) and all(np.array_equal(expected[k], got[k]) for k in expected):
            out.add(name)
    return out


def dead_inputs(spec, seed: int = 0) -> tuple[str, ...]:
    """The read-only, unstructured buffers of ``spec`` whose values change none of its reference's outputs,
    neither at the harness's input ranges nor at wide ones (a buffer either draw finds live is live).

    Args:
        spec: a generated ``KernelSpec`` (with its reference and ``make_inputs``).
        seed: the seed of the draws.
    """
    import warnings

    sizes = dict(spec.check_sizes)
    structured = set(spec.make_inputs(np.random.default_rng(seed), sizes)) if spec.make_inputs else set()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        default = [spec.inputs(np.random.default_rng([seed, i]), sizes) for i in range(2)]
        dead = _unchanged(spec, default[0], default[1], sizes, structured)
        if not dead:
            return ()
        rng = np.random.default_rng([seed, 2])
        wide = _wide(default[0], structured, rng)
        dead &= _unchanged(spec, wide, _wide(wide, structured, rng), sizes, structured) or set()
    return tuple(sorted(dead))


_ID = re.compile(r"^gen\.(\d+)\.(\d+)$")


@functools.lru_cache(maxsize=2)
def _listed(seed: int, count: int) -> tuple:
    """``specs(count, seed)``, made once per process for all of a seed's chunks (the list is regenerated from the
    start, since a kernel's redraws depend on the ones before it)."""
    from . import specs

    return tuple(specs(count, seed))


def _dead_of_chunk(job: tuple[int, int, tuple[int, ...]]) -> dict[str, tuple[str, ...]]:
    seed, count, numbers = job
    listed = _listed(seed, count)
    return {listed[n].kernel_id: dead_inputs(listed[n]) for n in numbers}


def dead_input_kernels(kernel_ids, jobs: int = 1, progress=None) -> dict[str, tuple[str, ...]]:
    """``{kernel_id: dead buffers}`` of every generated kernel among ``kernel_ids`` (``()``: none dead), each
    regenerated from its id (``gen.<seed>.<n>``, :func:`kgraph.data.generator.specs`) and checked once.

    Args:
        kernel_ids: kernel ids; those that are not generated ones are skipped.
        jobs: worker processes (up to 200 kernels of one seed at a time each).
        progress: called with each finished chunk's ``{kernel_id: dead buffers}`` (to keep them on disk).
    """
    by_seed: dict[int, set[int]] = {}
    for kernel in kernel_ids:
        m = _ID.match(str(kernel))
        if m:
            by_seed.setdefault(int(m.group(1)), set()).add(int(m.group(2)))
    # a seed's kernels in chunks, so that the workers share the seeds evenly; every chunk of a seed asks for the
    # same list (the seed's highest number + 1), which each worker then generates once
    chunks = [(seed, max(numbers) + 1, tuple(sorted(numbers))[i:i + 200])
              for seed, numbers in sorted(by_seed.items()) for i in range(0, len(numbers), 200)]
    out: dict[str, tuple[str, ...]] = {}
    pool = cf.ProcessPoolExecutor(jobs, mp_context=mp.get_context("fork")) if jobs > 1 else contextlib.nullcontext()
    with pool:
        for result in (pool.map(_dead_of_chunk, chunks) if jobs > 1 else map(_dead_of_chunk, chunks)):
            out.update(result)
            if progress is not None:
                progress(result)
    return out
