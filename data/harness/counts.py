"""Exact work counts of a launch: from ``kgraph.instrument.count_launch`` (an instrumented run on
PoCL) when the instrumentation is installed and succeeds, else from ``kgraph.analysis`` (static,
evaluated at the launch's sizes), else unknown (-1).

Counts are hardware independent, so they are cached per (kernel, sizes, global, local).
"""
from __future__ import annotations

from .columns import COUNT_COLUMNS

UNKNOWN = {name: -1 for name in COUNT_COLUMNS}


class CountCache:
    """Counts of launches, computed once each. ``get(spec, config) -> (counts dict, source)``."""

    def __init__(self, use_instrumentation: bool = True):
        self._cache: dict[tuple, tuple[dict, str | None]] = {}
        self.use_instrumentation = use_instrumentation
        self.last_error: str | None = None

    def get(self, spec, config) -> tuple[dict, str | None]:
        key = (spec.kernel_id, config.sizes, config.global_size, config.local_size)
        if key not in self._cache:
            self._cache[key] = self._compute(spec, config)
        return self._cache[key]

    def _compute(self, spec, config) -> tuple[dict, str | None]:
        if self.use_instrumentation:
            try:
                from kgraph.instrument import count_launch
            except ImportError:
                count_launch = None
            if count_launch is not None:
                try:
                    result = count_launch(spec, config.sizes_dict, list(config.global_size),
                                          list(config.local_size))
                    return _normalise(result), "instrumented"
                except Exception as exc:  # instrumentation cannot handle this kernel: fall back
                    self.last_error = f"count_launch: {exc}"
        try:
            return _static_counts(spec, config), "static"
        except Exception as exc:
            self.last_error = f"static analysis: {exc}"
            return dict(UNKNOWN), None


def _normalise(result) -> dict:
    counts = result if isinstance(result, dict) else getattr(result, "counts", None) or vars(result)
    out = {}
    for name in COUNT_COLUMNS:
        value = counts.get(name, getattr(result, name, -1)) if isinstance(counts, dict) else -1
        out[name] = int(value) if value is not None else -1
    return out


def _static_counts(spec, config) -> dict:
    scalars = {k: float(v) for k, v in spec.scalar_values(config.sizes_dict).items()}
    env = {k: float(v) for k, v in config.sizes_dict.items()}
    env.update(scalars)
    return static_counts(spec.source, spec.lang, spec.kernel_name, env, config.global_size, config.local_size)


def static_counts(source: str, lang: str, kernel_name: str, scalars: dict, global_size, local_size) -> dict:
    """Whole-launch counts from ``kgraph.analysis`` (per work-item counts x work-items).

    ``scalars`` gives the kernel's scalar arguments (and any other names the counts use).
    The footprint is not known statically and stays -1. Raises when the analysis cannot.
    """
    import math

    import kgraph

    graphs = [g for g in kgraph.from_source(source, lang, "<launch>") if g.name == kernel_name]
    if not graphs:
        raise LookupError(f"no kernel {kernel_name} in the parsed source")
    env = {k: float(v) for k, v in scalars.items()}
    for d in range(3):
        g = int(global_size[d]) if d < len(global_size) else 1
        l = int(local_size[d]) if local_size is not None and d < len(local_size) else 1
        env.update({f"gsz{d}": g, f"lsz{d}": l, f"ngrp{d}": g // max(l, 1)})
    per_item = graphs[0].analysis.evaluate(env)
    items = math.prod(int(g) for g in global_size)
    out = dict(UNKNOWN)
    for name in COUNT_COLUMNS:
        if name in per_item and per_item[name] is not None and name != "footprint_bytes":
            out[name] = int(round(float(per_item[name]) * items))
    return out
