"""The launch catalog of the C corpus: which (kernel, sizes, core count) a C campaign measures.

Deterministic (seeded per kernel and core count, ``zlib.crc32`` of the names: the same list on every
machine and Python), about 21,600 distinct valid launches for the default core counts (1, 2, 4, 8, 14):
every kernel on one core (:data:`PER_KERNEL` [1] launches each), the OpenMP variants on every core count
(:data:`PER_KERNEL` [k > 1]). A kernel's launches start with the square tiles of
:func:`kgraph.data.corpus.c.sizes_for` (what earlier campaigns measured, so their rows are reused),
then seeded draws:

- dimensions: half from :data:`DIMS` (round sizes, powers of two and their neighbours), half
  log-uniform integers in [8, 1024] (any size, mostly not a power of two); GEMM's m, n, k, SYRK's n, k,
  TRSM's m, n independent; POTRF's n; GETRF's panel width n and height m >= n (a multiple 1-4 of n or
  a free draw, at most 4096);
- leading dimensions (``lda``, ``ldb``, ``ldc``, ``ldl`` in ``sizes``): each array tight (ld = rows)
  with probability 1/2, else rows + a pad from :data:`PADS` (a larger ld: the tile inside a bigger
  matrix, as a direct solver's front passes it);
- kept when the call's flops lie in :func:`flop_range` (variant and core count: ~2 µs to well under
  1 s per call at the rates measured so far: naive ≥ 1.4 GFLOP/s, the others ≥ 6 GFLOP/s per core on
  large problems).

:func:`visit_order` interleaves the launches round-robin over (core count, kernel) in a seeded order, so
a campaign cut by its budget has measured every kernel about equally; a re-run walks the same order and
skips what is stored (resumable).
"""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

import numpy as np

from . import TILES, NAIVE_MAX_TILE, CKernel, catalog, flops, shapes, sizes_for

#: core counts a campaign measures by default (14 of a 16-core host: two left for the system)
CORE_COUNTS = (1, 2, 4, 8, 14)
#: launches per kernel: on one core (every kernel), on k > 1 cores (the OpenMP variants)
PER_KERNEL = {1: 320, "k": 220}
DIMS = (8, 12, 16, 20, 24, 28, 31, 32, 33, 40, 48, 56, 63, 64, 65, 72, 80, 96, 100, 112, 127, 128, 129,
        144, 160, 176, 192, 200, 224, 240, 255, 256, 257, 288, 320, 352, 384, 400, 448, 480, 511, 512,
        576, 640, 768, 896, 1000, 1024)
PADS = (1, 3, 8, 16, 17, 64, 100)
MIN_DIM, MAX_DIM, MAX_PANEL = 8, 1024, 4096
SEED = 0


def flop_range(variant: str, cores: int) -> tuple[float, float]:
    """(least, most) flops of a launch of ``variant`` on ``cores`` cores."""
    if variant == "naive":
        return 1e4, 3e8
    return 2e4, 2e9 * max(1.0, cores / 2)


@dataclass(frozen=True)
class Launch:
    """One catalog launch: ``kernel`` with ``sizes`` (problem sizes, optional ``ld*``) on ``cores``."""

    kernel: CKernel
    sizes: dict
    cores: int

    @property
    def sizes_key(self) -> str:
        return json.dumps(self.sizes, sort_keys=True)


def _rng(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


def _dim(rng) -> int:
    if rng.random() < 0.5:
        return int(DIMS[rng.integers(len(DIMS))])
    return int(round(np.exp(rng.uniform(np.log(MIN_DIM), np.log(MAX_DIM)))))


def _draw(family: str, rng) -> dict:
    if family == "gemm":
        s = {"m": _dim(rng), "n": _dim(rng), "k": _dim(rng)}
    elif family == "syrk":
        s = {"n": _dim(rng), "k": _dim(rng)}
    elif family == "trsm":
        s = {"m": _dim(rng), "n": _dim(rng)}
    elif family == "potrf":
        s = {"n": _dim(rng)}
    elif family == "getrf":
        n = _dim(rng)
        m = n * int(rng.integers(1, 5)) if rng.random() < 0.5 else max(n, _dim(rng))
        s = {"m": min(m, MAX_PANEL), "n": n}
    else:
        raise KeyError(family)
    for name, (rows, _) in shapes(family, s).items():
        if rng.random() < 0.5:
            s[f"ld{name.lower()}"] = rows + int(PADS[rng.integers(len(PADS))])
    return s


def valid(family: str, sizes: dict) -> bool:
    """Sizes a function of ``family`` accepts: positive dimensions, GETRF m >= n, every ld >= its rows."""
    try:
        dims = shapes(family, sizes)
    except KeyError:
        return False
    if any(r < 1 or c < 1 for r, c in dims.values()):
        return False
    if family == "getrf" and sizes["m"] < sizes["n"]:
        return False
    return all(sizes.get(f"ld{name.lower()}", r) >= r for name, (r, _) in dims.items())


def kernel_launches(kernel: CKernel, cores: int, count: int | None = None, seed: int = SEED) -> list[dict]:
    """The sizes of ``kernel``'s launches on ``cores`` cores: the square tiles in range, then seeded
    draws, ``count`` distinct ones in all (fewer only if draws run dry)."""
    count = count or PER_KERNEL[1 if cores == 1 else "k"]
    low, high = flop_range(kernel.variant, cores)
    out, seen = [], set()

    def take(s: dict) -> None:
        key = json.dumps(s, sort_keys=True)
        if key not in seen and valid(kernel.family, s) and low <= flops(kernel.family, s) <= high:
            seen.add(key)
            out.append(s)

    for b in TILES:
        if kernel.variant != "naive" or b <= NAIVE_MAX_TILE:
            for s in sizes_for(kernel.family, b):
                take(s)
    rng = _rng(kernel.kernel_id, cores, seed)
    for _ in range(count * 200):
        if len(out) >= count:
            break
        take(_draw(kernel.family, rng))
    return out[:count]


def launches(cores=CORE_COUNTS, kernels=None, seed: int = SEED, per_kernel: dict | None = None) -> list[Launch]:
    """Every catalog launch for ``cores`` (core-count order, then kernel order, then draw order):
    single-threaded variants on one core only, the OpenMP variants on every count."""
    per_kernel = per_kernel or PER_KERNEL
    kernels = catalog() if kernels is None else kernels
    out = []
    for k in cores:
        for kernel in kernels:
            if k > 1 and not kernel.uses_openmp:
                continue
            n = per_kernel[1 if k == 1 else "k"]
            out.extend(Launch(kernel, s, k) for s in kernel_launches(kernel, k, n, seed))
    return out


def visit_order(items: list[Launch], seed: int = SEED) -> list[Launch]:
    """``items`` interleaved round-robin over their (core count, kernel) groups, the groups in a seeded
    order and each group's launches seeded-shuffled: any prefix covers the groups evenly."""
    groups: dict[tuple, list[Launch]] = {}
    for item in items:
        groups.setdefault((item.cores, item.kernel.kernel_id), []).append(item)
    names = sorted(groups)
    rng = _rng("order", seed)
    names = [names[i] for i in rng.permutation(len(names))]
    for name in names:
        group = groups[name]
        groups[name] = [group[i] for i in _rng("order", seed, *name).permutation(len(group))]
    out = []
    for i in range(max((len(g) for g in groups.values()), default=0)):
        out.extend(groups[name][i] for name in names if i < len(groups[name]))
    return out
