"""KernelAnalysis: the symbolic per-work-item counts of one kernel and their evaluation."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from kgraph.parsers.errors import UsageError

from kgraph.analysis.counts import COUNT_KEYS

_SIZE_PREFIXES = ("gsz", "lsz", "ngrp")


@dataclass
class Access:
    """One memory access site, classified.

    Args:
        buffer: buffer parameter or array; space: ``global`` | ``local``; kind: ``load`` | ``store`` |
            ``atomic`` (an atomic's target).
        bytes: bytes per execution; index: index expression as written; line: 1-based line.
        pattern: ``coalesced`` | ``strided`` | ``broadcast`` | ``indirect``; stride: sympy (None if indirect).
        executions: executions per work-item (sympy), function: where it is (helpers are inlined).
    """

    buffer: str
    space: str
    kind: str
    bytes: int
    index: str
    line: int
    pattern: str
    stride: object
    executions: object = 1
    function: str = ""

    def to_dict(self) -> dict:
        return {"buffer": self.buffer, "space": self.space, "kind": self.kind, "bytes": self.bytes,
                "index": self.index, "line": self.line, "pattern": self.pattern,
                "stride": None if self.stride is None else str(self.stride),
                "executions": str(self.executions), "function": self.function}


@dataclass
class KernelAnalysis:
    """Static analysis of one kernel.

    Args:
        name: kernel name; lang: its language.
        counts: count key → sympy expression, per work-item, in the scalar parameters and work sizes
            ``gsz0..2`` / ``lsz0..2`` / ``ngrp0..2`` (and ``trip_<line>`` for loops it could not count).
        loops: the loop nest (:class:`~kgraph.analysis.loops.Loop`, outer before inner).
        accesses: memory accesses (:class:`Access`), global and local.
        params: scalar parameter names; notes: what was approximated and how.
        branches: lines of the branches weighed by a share, 1/2 unless given (:mod:`kgraph.analysis.branches`).
    """

    name: str
    lang: str
    counts: dict
    loops: list = field(default_factory=list)
    accesses: list = field(default_factory=list)
    params: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    branches: list = field(default_factory=list)

    def __post_init__(self):
        self._compiled = {}
        self._derived = {}
        self._symbols = None

    @property
    def symbols(self) -> set[str]:
        """Names that need a value for :meth:`evaluate` (computed once; a copy)."""
        if self._symbols is None:
            out = set()
            for expr in self.counts.values():
                out |= {s.name for s in sp.sympify(expr).free_symbols}
            self._symbols = frozenset(out)
        return set(self._symbols)

    def derived(self, key, make):
        """``make()`` computed once per analysis and kept under ``key``: what consumers derive from the
        analysis (compiled evaluators, the static footprint, the exact-count facts) is made once per
        kernel and shared by every launch and every consumer of this analysis."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]

    def resolve_env(self, env: dict) -> dict[str, float]:
        """Complete ``env`` with derived work sizes (:func:`resolve_env`)."""
        return resolve_env(env)

    def _function(self, key: str):
        if key not in self._compiled:
            expr = sp.sympify(self.counts[key])
            names = sorted(s.name for s in expr.free_symbols)
            syms = sorted(expr.free_symbols, key=lambda s: s.name)
            fn = sp.lambdify(syms, expr, modules=[NUMERIC_FUNCTIONS, "math"])
            self._compiled[key] = (names, fn)
        return self._compiled[key]

    def evaluate(self, env: dict) -> dict[str, float]:
        """Every per-work-item count as a number, given values of the parameters and work sizes."""
        values = self.resolve_env(env)
        if self._symbols is None:
            self.symbols  # noqa: B018 - computes the names once
        missing = sorted(self._symbols - set(values))
        if missing:
            raise UsageError(f"kernel '{self.name}': no value given for {', '.join(missing)} "
                             "(scalar parameters, gsz/lsz/ngrp work sizes, trip_<line> loop counts)")
        out = {}
        for key in COUNT_KEYS:
            names, fn = self._function(key)
            out[key] = float(fn(*(values[n] for n in names)))
        return out

    def work_items(self, env: dict) -> float:
        values = self.resolve_env(env)
        return float(values["gsz0"] * values["gsz1"] * values["gsz2"])

    def total(self, env: dict) -> dict[str, float]:
        """Counts for the whole launch: per-work-item counts × number of work-items."""
        n = self.work_items(env)
        return {k: v * n for k, v in self.evaluate(env).items()}

    def arithmetic_intensity(self, env: dict) -> float:
        """Total FLOPs (fp32 + fp64) per byte of global traffic (inf when there is no traffic)."""
        c = self.evaluate(env)
        flops = c["flops_fp32"] + c["flops_fp64"]
        nbytes = c["global_load_bytes"] + c["global_store_bytes"]
        return flops / nbytes if nbytes else math.inf

    def to_dict(self) -> dict:
        """JSON-able form; expressions as strings (``sympy.sympify`` reads them back)."""
        return {"name": self.name, "lang": self.lang, "params": list(self.params),
                "counts": {k: str(self.counts[k]) for k in COUNT_KEYS},
                "loops": [lp.to_dict() for lp in self.loops],
                "accesses": [a.to_dict() for a in self.accesses], "notes": list(self.notes),
                "branches": list(self.branches)}


def resolve_env(env: dict) -> dict[str, float]:
    """Complete ``env`` with derived work sizes: ``ngrp = gsz/lsz``, ``gsz = lsz*ngrp`` and unused
    dimensions 1 and 2 (no size given) = 1. Also accepts ``global_size``/``local_size`` lists."""
    out = {k: v for k, v in env.items() if not isinstance(v, (list, tuple))}
    for key, prefix in (("global_size", "gsz"), ("local_size", "lsz"), ("num_groups", "ngrp")):
        for d, v in enumerate(env.get(key, ()) or ()):
            out.setdefault(f"{prefix}{d}", v)
    for d in range(3):
        g, l, n = (out.get(f"{p}{d}") for p in _SIZE_PREFIXES)
        if g is not None and l is not None and n is None:
            out[f"ngrp{d}"] = g / l
        elif l is not None and n is not None and g is None:
            out[f"gsz{d}"] = l * n
        elif g is not None and n is not None and l is None:
            out[f"lsz{d}"] = g / n
        elif g is None and l is None and n is None and d > 0:
            out.update({f"gsz{d}": 1, f"lsz{d}": 1, f"ngrp{d}": 1})
    return out


def floor_log2_value(x):
    """The number :class:`kgraph.analysis.symbolic.floor_log2` stands for: ``floor(log2(x))`` exactly
    (the binary exponent of ``x``), -1 for x <= 0, NaN and infinities.

    The one numeric definition: the analysis' evaluators use it on numbers (an ``int`` back), the
    launch features (``kgraph.data.features``) on arrays (Float64 back), and the C export translates
    it as :data:`FLOOR_LOG2_C`, the same computation in C.
    """
    a = np.asarray(x, dtype=np.float64)
    ok = np.isfinite(a) & (a > 0)
    out = np.where(ok, np.frexp(np.where(ok, a, 1.0))[1] - 1, -1)
    return int(out) if out.ndim == 0 else out.astype(np.float64)


#: :func:`floor_log2_value` in C99 (for ``sympy.ccode(..., user_functions=C_FUNCTIONS)``)
FLOOR_LOG2_C = """static double kgraph_floor_log2(double x) { /* floor(log2(x)) exactly; -1 for x <= 0 */
  int e;
  if (!(x > 0.0) || !isfinite(x)) return -1.0;
  (void)frexp(x, &e);
  return (double)(e - 1);
}
"""
#: kgraph.analysis functions -> their C helpers (defined by :data:`FLOOR_LOG2_C`)
C_FUNCTIONS = {"floor_log2": "kgraph_floor_log2"}
#: kgraph.analysis functions -> their numeric definitions, for ``sympy.lambdify(modules=[...])``
NUMERIC_FUNCTIONS = {"floor_log2": floor_log2_value}
