"""Work counts of a launch: exact from an instrumented run on the campaign's own device, else static.

Counts are hardware independent, so :class:`CountCache` computes them once per (kernel, sizes,
global, local). In ``auto`` mode the measuring worker runs the kernel's instrumented version
(``kgraph.instrument``, built once per kernel on the worker's own context) on the very device
buffers it just timed, so no second OpenCL platform (PoCL) and no host copy of the data is needed.
It falls back to the static analysis (``kgraph.analysis`` x work-items, ``counts_source="static"``)
when the kernel cannot be instrumented exactly, or when the instrumented run would be too costly:
more than ``max_instrumented_accesses`` global accesses estimated statically (bytes / 4), or,
without a static estimate, a launch slower than ``max_uncounted_time_s``. The static analysis is
parsed and analysed once per kernel (module-level cache) and only evaluated per configuration.
"""
from __future__ import annotations

import functools
import math

from .columns import COUNT_COLUMNS

UNKNOWN = {name: -1 for name in COUNT_COLUMNS}
COUNT_MODES = ("auto", "instrumented", "static", "none")


class CountCache:
    """Counts of launches, computed once each.

    Args:
        mode: "auto" (instrumented within the cost caps, else static), "instrumented" (no cost
            caps), "static" or "none".
        max_instrumented_accesses: the "auto" cap on statically estimated global accesses.
        max_uncounted_time_s: the "auto" cap on the launch's median time when there is no static estimate.
    """

    def __init__(self, mode: str = "auto", max_instrumented_accesses: float = 2e9,
                 max_uncounted_time_s: float = 0.02):
        if mode not in COUNT_MODES:
            raise ValueError(f"counts mode {mode!r}: expected one of {COUNT_MODES}")
        self.mode = mode
        self.max_instrumented_accesses = max_instrumented_accesses
        self.max_uncounted_time_s = max_uncounted_time_s
        self._cache: dict[tuple, tuple[dict, str | None]] = {}
        self._programs: dict[str, tuple | None] = {}
        self.last_error: str | None = None

    def get(self, spec, config, device_launch=None, median_time_ns: float | None = None):
        """``(counts dict, source)`` of one launch; ``device_launch(kernel, program) -> WorkCounts``
        runs the instrumented program on the measured buffers (None: static only)."""
        key = (spec.kernel_id, config.sizes, config.global_size, config.local_size)
        if key not in self._cache:
            self._cache[key] = self._compute(spec, config, device_launch, median_time_ns)
        return self._cache[key]

    def _compute(self, spec, config, device_launch, median_time_ns):
        if self.mode == "none":
            return dict(UNKNOWN), None
        try:
            static = _static_counts(spec, config)
        except Exception as exc:  # noqa: BLE001 - the analysis cannot handle this kernel
            self.last_error = f"static analysis: {exc}"
            static = None
        if self.mode in ("auto", "instrumented") and device_launch is not None \
                and self._affordable(static, median_time_ns):
            program = self.program(spec, device_launch)
            if program is not None:
                try:
                    work = device_launch(*program)
                    return work.to_dict(), "instrumented"
                except Exception as exc:  # noqa: BLE001 - fall back to static counts
                    self.last_error = f"instrumented run: {exc}"
        return (static, "static") if static is not None else (dict(UNKNOWN), None)

    def _affordable(self, static, median_time_ns) -> bool:
        if self.mode == "instrumented":
            return True
        if static is not None and static["global_load_bytes"] >= 0 and static["global_store_bytes"] >= 0:
            accesses = (static["global_load_bytes"] + static["global_store_bytes"]) / 4 + max(static["atomics"], 0)
            return accesses <= self.max_instrumented_accesses
        return median_time_ns is not None and median_time_ns <= self.max_uncounted_time_s * 1e9

    def program(self, spec, device_launch):
        """``(InstrumentedKernel, program)`` of ``spec`` built on ``device_launch.context`` (once), or
        None when the kernel cannot be instrumented exactly or the instrumented source does not build."""
        if spec.kernel_id not in self._programs:
            self._programs[spec.kernel_id] = None
            try:
                from kgraph.instrument import instrument
                from parsers import parse_source

                from .builds import build_program

                if spec.lang != "opencl":
                    return None
                kernel = instrument(parse_source(spec.source, "opencl", filename=f"{spec.kernel_id}.cl"),
                                    spec.kernel_name)
                if not kernel.exact:
                    self.last_error = f"instrumentation not exact: {'; '.join(kernel.warnings)}"
                    return None
                program, _ = build_program(device_launch.context, kernel.source)
                self._programs[spec.kernel_id] = (kernel, program)
            except Exception as exc:  # noqa: BLE001 - the kernel keeps static counts
                self.last_error = f"instrumentation of {spec.kernel_id}: {exc}"
        return self._programs[spec.kernel_id]


def _static_counts(spec, config) -> dict:
    env = {k: float(v) for k, v in config.sizes_dict.items()}
    env.update({k: float(v) for k, v in spec.scalar_values(config.sizes_dict).items()})
    return static_counts(spec.source, spec.lang, spec.kernel_name, env, config.global_size, config.local_size)


@functools.lru_cache(maxsize=1024)
def _analysis_of(source: str, lang: str, kernel_name: str):
    """The static analysis of one kernel (parsed and analysed once per process)."""
    import kgraph

    graphs = [g for g in kgraph.from_source(source, lang, "<launch>") if g.name == kernel_name]
    if not graphs:
        raise LookupError(f"no kernel {kernel_name} in the parsed source")
    return graphs[0].analysis


def static_counts(source: str, lang: str, kernel_name: str, scalars: dict, global_size, local_size) -> dict:
    """Whole-launch counts from ``kgraph.analysis`` (per work-item counts x work-items).

    ``scalars`` gives the kernel's scalar arguments (and any other names the counts use).
    The footprint is not known statically and stays -1. Raises when the analysis cannot.
    """
    analysis = _analysis_of(source, lang, kernel_name)
    env = {k: float(v) for k, v in scalars.items()}
    for d in range(3):
        g = int(global_size[d]) if d < len(global_size) else 1
        l = int(local_size[d]) if local_size is not None and d < len(local_size) else 1
        env.update({f"gsz{d}": g, f"lsz{d}": l, f"ngrp{d}": g // max(l, 1)})
    per_item = analysis.evaluate(env)
    items = math.prod(int(g) for g in global_size)
    out = dict(UNKNOWN)
    for name in COUNT_COLUMNS:
        if name in per_item and per_item[name] is not None and name != "footprint_bytes":
            out[name] = int(round(float(per_item[name]) * items))
    return out
