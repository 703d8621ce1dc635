"""Work counts of a launch: exact from an instrumented run on the campaign's own device, else static.

Counts are hardware independent, so :class:`CountCache` computes them once per (kernel, sizes,
global, local). The work is split between the two processes of a campaign:

* the measuring worker (:meth:`CountCache.instrumented`) runs the kernel's instrumented version
  (``kgraph.instrument``, instrumented and built once per kernel on the worker's own context, the
  build through the binary cache) on the very device buffers it just timed: no second OpenCL
  platform (PoCL) and no host copy of the data. It skips it (``auto`` mode) when the kernel cannot
  be instrumented exactly or when the launch's median time exceeds ``max_instrumented_time_s``
  (the instrumented run costs a few times the kernel's own time);
* the supervisor, otherwise idle while the device works, fills the other rows with the static
  analysis (:meth:`CountCache.static`: ``kgraph.analysis`` x work-items, parsed and analysed once
  per kernel, evaluated per configuration; ``counts_source="static"``, or ``"static-inexact"`` when the
  kernel's static counts are not exact: :mod:`kgraph.exact_counts`, the rule ``kgraph estimate`` uses).

In ``dependent`` mode the worker keeps the static counts of a launch only when they are complete and exact
(:func:`static_complete`); every other launch (a data-dependent trip count, branch or ``break``, an
approximation note) gets an instrumented run.
"""
from __future__ import annotations

import functools
import math
import time

from .columns import COUNT_COLUMNS
from .count_donors import INEXACT_SOURCE, REQUIRED_COUNTS

UNKNOWN = {name: -1 for name in COUNT_COLUMNS}
COUNT_MODES = ("auto", "instrumented", "dependent", "static", "none")
# the instrumented modes: an instrumented run on the campaign's own device is tried (and built ahead)
INSTRUMENTED_MODES = ("auto", "instrumented", "dependent")


class CountCache:
    """Counts of launches, computed once each.

    Args:
        mode: "auto" (instrumented when affordable, else static), "instrumented" (no time cap),
            "dependent" (static where the analysis gives every count exactly; an instrumented run, with
            no time cap, only for the other launches: data-dependent or approximated counts), "static"
            or "none".
        max_instrumented_time_s: the "auto" cap on the launch's median time for an instrumented run.
    """

    def __init__(self, mode: str = "auto", max_instrumented_time_s: float = 0.02):
        if mode not in COUNT_MODES:
            raise ValueError(f"counts mode {mode!r}: expected one of {COUNT_MODES}")
        self.mode = mode
        self.max_instrumented_time_s = max_instrumented_time_s
        self._cache: dict[tuple, tuple[dict, str | None]] = {}
        self._programs: dict[str, tuple | None] = {}
        self.last_error: str | None = None
        self.build_s = 0.0  # seconds spent instrumenting and building (``program``)

    def instrumented(self, spec, config, device_launch, median_time_ns: float | None = None):
        """``(counts, "instrumented")`` from ``device_launch(kernel, program) -> WorkCounts`` (which
        runs the instrumented program on the measured buffers), or None when not done here. In "dependent"
        mode the static counts, already evaluated here to decide, are returned when they are complete and
        exact (``(counts, "static")``), so the supervisor does not analyse the launch again."""
        key = (spec.kernel_id, config.sizes, config.global_size, config.local_size)
        if key in self._cache:
            return self._cache[key]
        if self.mode not in INSTRUMENTED_MODES:
            return None
        if self.mode == "dependent" and static_complete(*self.static(spec, config)):
            return self.static(spec, config)
        if self.mode == "auto" and (median_time_ns is None or median_time_ns > self.max_instrumented_time_s * 1e9):
            return None
        program = self.program(spec, device_launch.context)
        if program is None:
            return None
        try:
            work = device_launch(*program)
        except Exception as exc:  # noqa: BLE001 - the supervisor falls back to static counts
            self.last_error = f"instrumented run: {exc}"
            return None
        self._cache[key] = (work.to_dict(), "instrumented")
        return self._cache[key]

    def static(self, spec, config) -> tuple[dict, str | None]:
        """``(counts, "static")`` from the analysis (``"static-inexact"`` when the kernel's static counts are
        not exact: :func:`static_source`), or ``(all -1, None)`` when it cannot."""
        key = (spec.kernel_id, config.sizes, config.global_size, config.local_size, "static")
        if key not in self._cache:
            if self.mode == "none":
                return dict(UNKNOWN), None
            try:
                self._cache[key] = _static_counts(spec, config), static_source(spec.source, spec.lang,
                                                                               spec.kernel_name)
            except Exception as exc:  # noqa: BLE001 - the analysis cannot handle this kernel
                self.last_error = f"static analysis: {exc}"
                self._cache[key] = dict(UNKNOWN), None
        return self._cache[key]

    def program(self, spec, context):
        """``(InstrumentedKernel, program)`` of ``spec`` built on ``context`` (once), or None when the
        kernel cannot be instrumented exactly or the instrumented source does not build."""
        if spec.kernel_id not in self._programs:
            start = time.perf_counter()
            self._programs[spec.kernel_id] = None
            if spec.lang != "opencl":
                return None
            try:
                from kgraph.instrument import instrument
                from kgraph.parsers import parse_source

                from .builds import build_program

                kernel = instrument(parse_source(spec.source, "opencl", filename=f"{spec.kernel_id}.cl"),
                                    spec.kernel_name)
                if not kernel.exact:
                    self.last_error = f"instrumentation not exact: {'; '.join(kernel.warnings)}"
                    return None
                program, _ = build_program(context, kernel.source)
                self._programs[spec.kernel_id] = (kernel, program)
            except Exception as exc:  # noqa: BLE001 - the kernel keeps static counts
                self.last_error = f"instrumentation of {spec.kernel_id}: {exc}"
            finally:
                self.build_s += time.perf_counter() - start
        return self._programs[spec.kernel_id]


def static_complete(values: dict, source: str | None) -> bool:
    """Whether static counts (:meth:`CountCache.static`) give every count a row needs (the footprint may stay
    -1), exactly (``source`` "static", not "static-inexact")."""
    return source == "static" and all(values[name] >= 0 for name in REQUIRED_COUNTS)


def _static_counts(spec, config) -> dict:
    env = {k: float(v) for k, v in config.sizes_dict.items()}
    env.update({k: float(v) for k, v in spec.scalar_values(config.sizes_dict).items()})
    return static_counts(spec.source, spec.lang, spec.kernel_name, env, config.global_size, config.local_size)


@functools.lru_cache(maxsize=1024)
def _analysis_of(source: str, lang: str, kernel_name: str):
    """``(analysis, static footprint or None, inexact reason)`` of one kernel, parsed and analysed once per
    process (no graph built); the footprint is compiled from the same analysis (:mod:`kgraph.analysis.footprint`),
    the reason is :func:`kgraph.exact_counts.inexact_reason` ("" when the static counts are exact)."""
    from kgraph.analysis import analyze
    from kgraph.data.static_footprint import footprint_or_none
    from kgraph.exact_counts import inexact_reason
    from kgraph.parsers import parse_source

    unit = parse_source(source, lang, filename=f"<{kernel_name}>")
    function = unit.function(kernel_name)
    if function is None or not function.is_kernel:
        raise LookupError(f"no kernel {kernel_name} in the parsed source")
    analysis = analyze(function, unit)
    return analysis, footprint_or_none(function, unit, analysis), inexact_reason(analysis, unit, function)


def static_source(source: str, lang: str, kernel_name: str) -> str:
    """The ``counts_source`` of static counts of this kernel: ``"static"`` when the analysis counts it exactly,
    else ``"static-inexact"`` (a data-dependent branch weighed 1/2, a loop left by ``break`` counted at its bound,
    an approximation note, a loop of unknown trip count: :mod:`kgraph.exact_counts`). Raises as
    :func:`static_counts` does when the kernel cannot be analysed."""
    return INEXACT_SOURCE if _analysis_of(source, lang, kernel_name)[2] else "static"


def static_counts(source: str, lang: str, kernel_name: str, scalars: dict, global_size, local_size) -> dict:
    """Whole-launch counts from ``kgraph.analysis`` (per work-item counts x work-items).

    ``scalars`` gives the kernel's scalar arguments (and any other names the counts use). The footprint is
    the static one where the analysis marks it exact (as ``kgraph estimate`` uses it: the training rows'
    DRAM floors then match the ones the estimate path computes), else -1. Raises when the analysis cannot.
    Whether the counts are exact (every branch and trip count known): :func:`static_source`.
    """
    analysis, footprint, _ = _analysis_of(source, lang, kernel_name)
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
    fp = footprint.evaluate(env) if footprint is not None else None
    if fp is not None and fp.exact and fp.total_bytes is not None:
        out["footprint_bytes"] = int(round(float(fp.total_bytes)))
    return out
