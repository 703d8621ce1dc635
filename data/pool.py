"""One process pool for per-kernel work that many kernels need once each (graph building, static counts).

A dataset of generated kernels has thousands; parsed and analysed one after the other they took ~100 s of
every training process on the GPU host. :func:`parallel_map` spreads such work over the cores (spawned
processes, so no parent state such as a CUDA context is inherited) and keeps the order of its input.
"""
from __future__ import annotations

import logging
import os
from typing import Callable, Iterable, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")

#: below this many items the work runs in this process (a pool's start costs ~5 s of imports per worker)
POOL_MIN_ITEMS = 64
#: at most this many worker processes
MAX_JOBS = 16


def default_jobs() -> int:
    """One process per core, at most :data:`MAX_JOBS`; 1 on a machine of two cores or fewer (a CI box)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(MAX_JOBS, cores) if cores > 2 else 1


def parallel_map(fn: Callable[[T], R], items: Iterable[T], jobs: int | None = None,
                 min_items: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, on a pool of ``jobs`` processes when there are at least ``min_items``.

    Args:
        fn: a module-level function (picklable), applied to each item.
        items: picklable inputs.
        jobs: processes; None: :func:`default_jobs`.
        min_items: smallest input that gets a pool; None: :data:`POOL_MIN_ITEMS`.

    Falls back to this process, with a warning, when no pool can be started (e.g. a ``__main__`` read from
    stdin cannot be spawned).
    """
    items = list(items)
    jobs = default_jobs() if jobs is None else jobs
    if len(items) < (POOL_MIN_ITEMS if min_items is None else min_items) or jobs <= 1:
        return [fn(x) for x in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            return list(pool.map(fn, items, chunksize=max(1, len(items) // (8 * jobs))))
    except (BrokenProcessPool, OSError) as exc:
        log.warning("process pool unavailable (%s); %d items in this process", exc, len(items))
        return [fn(x) for x in items]
