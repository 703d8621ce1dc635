"""Launch sampling: which (problem sizes, NDRange, work-group shape) to measure for a kernel.

Candidates are every point of ``spec.size_grid()`` that fits the device's memory, crossed with
every work-group shape the spec and the device allow. Each candidate falls in a stratum
(problem-size band x utilisation regime x work-group shape); candidates are shuffled inside each
stratum with the seed, and strata are visited round-robin, so that any prefix of the order covers
small and large problems, the three regimes and several shapes. Deterministic for a given seed.

Utilisation regimes (``regime_of``): ``few`` (fewer work-groups than compute units),
``underfilled`` (fewer than ``4 x compute units`` work-groups) and ``saturated``.
"""
from __future__ import annotations

import math
import random
import zlib
from dataclasses import dataclass

from .columns import launch_key

REGIMES = ("few", "underfilled", "saturated")


@dataclass(frozen=True)
class LaunchConfig:
    """One launch of a kernel.

    Args:
        sizes: problem-size parameters (name -> value).
        global_size / local_size: NDRange and work-group shape, one entry per dimension.
    """

    sizes: tuple  # ((name, value), ...) sorted by name, hashable
    global_size: tuple
    local_size: tuple

    @property
    def sizes_dict(self) -> dict:
        return dict(self.sizes)

    @property
    def num_groups(self) -> int:
        return math.prod(g // l for g, l in zip(self.global_size, self.local_size))

    def key(self, device_id: str, kernel_id: str) -> str:
        return launch_key(device_id, kernel_id, self.sizes_dict, self.global_size, self.local_size)

    def to_json(self) -> dict:
        return {"sizes": self.sizes_dict, "global": list(self.global_size), "local": list(self.local_size)}

    @classmethod
    def from_json(cls, obj: dict) -> "LaunchConfig":
        return cls(tuple(sorted(obj["sizes"].items())), tuple(obj["global"]), tuple(obj["local"]))


@dataclass(frozen=True)
class DeviceLimits:
    """What sampling needs to know about a device (from its descriptor or pyopencl)."""

    compute_units: int
    max_work_group_size: int
    max_work_item_sizes: tuple
    max_alloc_bytes: int
    global_mem_bytes: int

    @classmethod
    def from_device(cls, device) -> "DeviceLimits":
        return cls(int(device.max_compute_units), int(device.max_work_group_size),
                   tuple(int(x) for x in device.max_work_item_sizes), int(device.max_mem_alloc_size),
                   int(device.global_mem_size))


def regime_of(num_groups: int, compute_units: int) -> str:
    if num_groups < compute_units:
        return "few"
    if num_groups < 4 * compute_units:
        return "underfilled"
    return "saturated"


def fits_memory(spec, sizes: dict, limits: DeviceLimits, mem_fraction: float = 0.5) -> bool:
    """All buffers within ``mem_fraction`` of device memory and each within the max allocation."""
    import numpy as np

    counts = spec.buffer_counts(sizes)
    total = 0
    for arg in spec.args:
        if arg.kind == "buffer":
            nbytes = counts[arg.name] * np.dtype(arg.dtype).itemsize
            if nbytes > limits.max_alloc_bytes:
                return False
            total += nbytes
    return total <= mem_fraction * limits.global_mem_bytes


def candidates(spec, limits: DeviceLimits, max_launch_bytes: int | None = None) -> list[LaunchConfig]:
    """Every valid launch of ``spec`` on a device with these limits (unordered)."""
    found = []
    for sizes in spec.size_grid():
        if not fits_memory(spec, sizes, limits):
            continue
        if max_launch_bytes is not None and spec.launch_bytes(sizes) > max_launch_bytes:
            continue
        gsize = tuple(spec.global_size_of(sizes))
        for local in spec.valid_local_sizes(sizes, limits.max_work_group_size, list(limits.max_work_item_sizes)):
            found.append(LaunchConfig(tuple(sorted(sizes.items())), gsize, tuple(local)))
    return found


def _work(config: LaunchConfig) -> float:
    """A size proxy for banding: the product of the problem-size parameters."""
    return float(math.prod(max(v, 1) for _, v in config.sizes))


def sample_launches(spec, limits: DeviceLimits, seed: int = 0, max_count: int | None = None,
                    bands: int = 4, max_launch_bytes: int | None = None) -> list[LaunchConfig]:
    """The launches of ``spec`` in measuring order (stratified round-robin; see module doc)."""
    pool = candidates(spec, limits, max_launch_bytes)
    if not pool:
        return []
    rng = random.Random(zlib.crc32(f"{seed}|{spec.kernel_id}".encode()))
    works = sorted({_work(c) for c in pool})
    lo, hi = math.log(works[0]), math.log(works[-1])
    shapes = sorted({c.local_size for c in pool})
    strata: dict[tuple, list[LaunchConfig]] = {}
    for c in pool:
        band = 0 if hi == lo else min(bands - 1, int((math.log(_work(c)) - lo) / (hi - lo) * bands))
        stratum = (band, regime_of(c.num_groups, limits.compute_units), shapes.index(c.local_size))
        strata.setdefault(stratum, []).append(c)
    order = sorted(strata)
    rng.shuffle(order)
    for key in order:
        strata[key].sort(key=lambda c: (c.sizes, c.local_size))
        rng.shuffle(strata[key])
    result: list[LaunchConfig] = []
    depth = 0
    while len(result) < len(pool):
        for key in order:
            if depth < len(strata[key]):
                result.append(strata[key][depth])
        depth += 1
    return result[:max_count] if max_count is not None else result
