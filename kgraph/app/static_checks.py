"""What the static analysis says about a launch that ``kgraph estimate`` reports next to the model: exact FLOPs and
bytes (:func:`static_counts`) and launches that do not cover the problem their scalar arguments describe
(:func:`coverage_warnings`).

Both use the kernel's one analysis (the graph's, ``kgraph.graphs.analysis_of``), through :class:`KernelFacts` made
once per kernel.

**Static counts.** The kernel's per-work-item counts evaluated at the launch (scalar arguments, global and local
sizes) times its work-items: ``flops = flops_fp32 + flops_fp64`` and ``bytes = global_load_bytes +
global_store_bytes`` (the model's ``flops``/``bytes`` targets). They replace the model's where the analysis counts
every statement exactly, by the rule :mod:`kgraph.exact_counts` states (also the measuring harness's: no
approximation note, every loop trip count symbolic, no branch that depends on data); a kernel whose only
inexactness is loops of unknown trip count is exact at launches that give their ``trip_<line>`` means.

**Coverage** (a heuristic; warnings only). Two signals, per NDRange dimension ``d`` of the launch:

* guards: the kernel's total work ``W`` (FLOPs + global bytes, ``trip_<line>`` symbols set to 1) is evaluated at the
  launch and with ``gsz_d`` (and ``ngrp_d``) times 2, 4, ... ``2**20``. Guards (``if (i < n)``) that bound the work
  make it grow as the launch up to ``bound/gsz_d``, then fall behind; ``r``, the work where it first grows less than
  0.9 times as fast as the launch over the launch's, with ``1.5 < r < 2**19`` (and the work doubling with the
  launch's first doubling) means the launch covers ``1/r`` of the problem in dimension ``d``. No guards or a
  grid-stride loop: no warning. Work before a guard that every item does (a ``__local`` tile loaded before
  ``if (i >= n) return;``) grows with any launch; the doubling test keeps it from a warning.
* row strides of stores: in the affine index of each global store, the part in dimension ``d``'s ids spans
  ``span_d`` elements at this launch and steps by ``step_d`` (its smallest coefficient). Sorting the dimensions by
  step, a step more than 1.5 times the span of the dimensions below it (``C[row * N + col]`` with 64 columns of
  work-items and ``N = 2048``) leaves gaps: each row of the output is only ``span/step`` covered. This catches
  unguarded kernels (the CUDA GEMM whose grid was given as ``--global``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# data_dependent is imported from here too (tests, older callers); the rule lives in kgraph.exact_counts
from kgraph.exact_counts import data_dependent, exactness  # noqa: F401

GROWTH = 2.0 ** 20
LAZY_GROWTH = 256  # launches of a kernel from which coverage evaluates the first doubling alone before the rest
_ID_PREFIXES = ("gid", "lid", "grp")


@dataclass
class KernelFacts:
    """The static analysis of one kernel and whether its counts are exact (see the module doc)."""

    analysis: object = None
    exact: bool = False
    reason: str = ""
    stores: list = field(default_factory=list)  # sympy index expressions of the global stores
    trips: tuple = ()  # trip_<line> symbols whose given means make the counts exact (exact is then False)
    loaded_atomics: tuple = ()  # lines of global atomics on an address loaded from memory (contention unknown)
    _strides: list | None = field(default=None, repr=False, compare=False)  # _store_strides, made once


def kernel_facts(graph) -> KernelFacts:
    """The facts of ``graph``'s kernel (a ``KernelGraph``) from its one analysis (``analysis_of``: the
    graph's, made on first use), made once and kept with it; never raises (no analysis: ``analysis`` None)."""
    from kgraph.graphs import analysis_of

    analysis = analysis_of(graph)
    if analysis is None:
        return KernelFacts(reason=f"no static analysis ({graph.analysis_error or 'unavailable'})")
    return analysis.derived("static_checks.facts", lambda: _facts(graph, analysis))


def _facts(graph, analysis) -> KernelFacts:
    stores = [getattr(a, "index_expr", None) for a in analysis.accesses
              if a.space == "global" and a.kind == "store"]
    facts = KernelFacts(analysis, True, "", [s for s in stores if s is not None],
                        loaded_atomics=loaded_atomic_lines(analysis))
    verdict = exactness(analysis, graph.unit, graph.function)
    if verdict.reason:
        facts.exact, facts.reason = False, verdict.reason
    if verdict.trips_suffice:  # a given mean of each loop of unknown trip count makes the counts exact
        from kgraph.models.launches import trip_symbols

        facts.trips = tuple(trip_symbols(graph))  # exact at given means of these loops, and only then
        facts.reason += f" (give its mean: --arg {facts.trips[0]}=N)" if facts.trips else ""
    return facts


def loaded_atomic_lines(analysis) -> tuple[int, ...]:
    """The lines of ``analysis``'s global atomics whose address is loaded from memory (``hist[bin[i]]``): how many
    of a launch's updates land on one address depends on the data, which neither the analysis nor the model sees."""
    from kgraph.analysis.atomics import atomic_targets

    return tuple(sorted({a.line for a in analysis.accesses if a.space == "global" and a.kind == "atomic"
                         and atomic_targets(getattr(a, "index_expr", None), getattr(a, "context", None)) is None}))


def atomic_caution(facts: KernelFacts) -> list[str]:
    """The warning for a kernel with atomics on loaded addresses (none without), naming their lines."""
    if not facts.loaded_atomics:
        return []
    lines = ", ".join(str(n) for n in facts.loaded_atomics)
    return [f"line{'s' if len(facts.loaded_atomics) > 1 else ''} {lines}: atomics on an address loaded from memory: "
            "how many collide depends on the data, which the model cannot see; on the 19 such hand-written kernels "
            "it was scored on, its time was 0.08x to 21x the measured one at each kernel's median (BENCHMARKS.md "
            "section 59)"]


def launch_envs(launches: list) -> dict:
    """Arrays (an entry per launch of one kernel) of scalar arguments, given ``trip_<line>`` means (else NaN), sizes."""
    import numpy as np

    names = sorted({name for l in launches for name in l.args})  # a given trip count may be in some launches only
    # column by column (one list per name and size, not a row per launch): the same float64 values
    env = {name: np.array([l.args.get(name, np.nan) for l in launches], dtype=np.float64) for name in names}
    for d in range(3):
        g = np.array([s[d] if len(s) > d else 1 for s in (l.global_size for l in launches)]).astype(np.float64)
        lsz = np.array([s[d] if len(s) > d else 1 for s in (l.local_size for l in launches)]).astype(np.float64)
        env.update({f"gsz{d}": g, f"lsz{d}": lsz, f"ngrp{d}": g / lsz})
    return env


def _grown(env: dict, d: int, factors) -> dict:
    """``env`` (:func:`launch_envs`) tiled once per factor (factor-major), dimension ``d``'s ``gsz``/``ngrp`` times
    it."""
    import numpy as np

    scale = np.repeat(np.asarray(factors, dtype=np.float64), len(env["gsz0"]))
    tiled = {name: np.tile(values, len(factors)) for name, values in env.items()}
    return {**tiled, f"gsz{d}": tiled[f"gsz{d}"] * scale, f"ngrp{d}": tiled[f"ngrp{d}"] * scale}


def _per_item(analysis, env: dict, trips: bool = False) -> dict:
    """Per-work-item counts (name -> Float[N]) of ``analysis`` at ``env`` (arrays); ``trips``: unknown ``trip_<line>``
    counts set to 1. A launch whose counts do not all evaluate (a symbol without a value, a division by zero) gets
    NaN in every count, as ``KernelAnalysis.evaluate`` raises there."""
    import numpy as np

    from kgraph.data.static_counts import STATIC_COUNTS, compile_counts

    n = len(env["gsz0"])
    missing = analysis.symbols - set(env)
    if trips:
        env = {**env, **{name: np.ones(n) for name in missing if name.startswith("trip_")}}
        missing = {name for name in missing if not name.startswith("trip_")}
    if missing:
        return {name: np.full(n, np.nan) for name in STATIC_COUNTS}
    values = compile_counts(analysis)(env)[:len(STATIC_COUNTS)]  # the features' function: the counts lead
    values = np.where(np.isfinite(values).all(0), values, np.nan)
    return dict(zip(STATIC_COUNTS, values))


def static_counts_many(facts: KernelFacts, launches: list, env: dict | None = None) -> list:
    """:func:`static_counts` of each of ``launches`` (all of the kernel of ``facts``), evaluated at once; ``env``:
    their :func:`launch_envs` when the caller has them."""
    import numpy as np

    if facts.analysis is None or not (facts.exact or facts.trips) or not launches:
        return [None] * len(launches)  # with trips: None for a launch that does not give them all (NaN below)
    c = _per_item(facts.analysis, env if env is not None else launch_envs(launches))
    items = np.array([float(math.prod(l.global_size)) for l in launches])
    flops = (c["flops_fp32"] + c["flops_fp64"]) * items
    nbytes = (c["global_load_bytes"] + c["global_store_bytes"]) * items
    ok = np.isfinite(flops) & np.isfinite(nbytes)
    fp64 = np.round(np.where(ok, c["flops_fp64"] * items, 0.0))
    flops, nbytes = np.round(np.where(ok, flops, 0.0)), np.round(np.where(ok, nbytes, 0.0))
    return [{"flops": float(f), "bytes": float(b), "flops_fp64": float(d)} if k else None
            for f, b, d, k in zip(flops, nbytes, fp64, ok)]


def static_counts(facts: KernelFacts, launch) -> dict | None:
    """``{"flops": ..., "bytes": ..., "flops_fp64": ...}`` for the whole launch when the counts are exact (FLOPs
    of both types, global bytes loaded + stored, and the fp64 FLOPs among them), else None."""
    return static_counts_many(facts, [launch])[0]


def _work(analysis, env: dict):
    """Total work (FLOPs + global bytes, ``trip_<line>`` = 1) per launch, NaN where unknown."""
    c = _per_item(analysis, env, trips=True)
    items = env["gsz0"] * env["gsz1"] * env["gsz2"]
    return (c["flops_fp32"] + c["flops_fp64"] + c["global_load_bytes"] + c["global_store_bytes"]) * items


def coverage_warnings_many(facts: KernelFacts, launches: list, env: dict | None = None) -> list[list[str]]:
    """:func:`coverage_warnings` of each of ``launches`` (all of the kernel of ``facts``): the work at every launch and
    at every growth of it in a dimension is one numpy evaluation; the store strides' coefficients are derived once.
    ``env``: their :func:`launch_envs` when the caller has them."""
    import numpy as np

    if facts.analysis is None or not launches:
        return [[] for _ in launches]
    out = [[] for _ in launches]
    base_env = env if env is not None else launch_envs(launches)
    with np.errstate(all="ignore"):
        base = _work(facts.analysis, base_env)
        dims = np.array([len(l.global_size) for l in launches])
        factors = 2.0 ** np.arange(1, int(np.log2(GROWTH)) + 1)
        for d in range(int(dims.max())):
            # the launch grown 2x ... 2**20x in d: where the work first grows < 0.9x as fast, the guards saturate
            at = np.flatnonzero((dims > d) & np.isfinite(base) & (base != 0))
            if not len(at):
                continue
            env_at = base_env if len(at) == len(launches) else {name: v[at] for name, v in base_env.items()}
            if len(at) >= LAZY_GROWTH:
                # a launch whose work already falls behind at the first doubling (every guarded launch that covers
                # its problem: most of a batch) is never warned of, so the other growths are evaluated only for the
                # rest (each launch's column is its own: the same numbers as evaluating all of them)
                doubled = _work(facts.analysis, _grown(env_at, d, factors[:1]))
                grows = np.isfinite(doubled) & ~(doubled / (base[at] * factors[0]) < 0.9)
                at, env_at = at[grows], {name: v[grows] for name, v in env_at.items()}
                if not len(at):
                    continue
                work = np.concatenate([doubled[grows][None], _work(facts.analysis, _grown(env_at, d, factors[1:]))
                                       .reshape(len(factors) - 1, len(at))])
            else:  # a few launches: one evaluation of every growth costs less than two
                work = _work(facts.analysis, _grown(env_at, d, factors)).reshape(len(factors), len(at))
            slower = work / (base[at] * factors[:, None]) < 0.9
            first = np.argmax(slower, axis=0)
            r = work[first, np.arange(len(at))] / base[at]
            for j in np.flatnonzero(np.isfinite(work).all(0) & slower.any(0) & ~slower[0] & (r > 1.5)
                                    & (r < GROWTH / 2)):
                i, r_i = at[j], r[j]
                g = launches[i].global_size[d]
                out[i].append(f"dimension {d}: the kernel's guards admit about {g * r_i:.0f} work-items but the "
                              f"launch has {g}: it covers about 1/{r_i:.0f} of the problem its scalar arguments "
                              "describe")
    strides = _store_strides(facts)
    fewest = _gap_dims(strides)
    if any(len(launch.global_size) >= fewest for launch in launches):
        for i, launch in enumerate(launches):
            env = {k: float(v[i]) for k, v in base_env.items()}
            out[i].extend(_stride_gaps(strides, launch, env))
    return out


def coverage_warnings(facts: KernelFacts, launch) -> list[str]:
    """Messages for dimensions of ``launch`` that cover only part of the problem (module doc)."""
    return coverage_warnings_many(facts, [launch])[0]


def _store_strides(facts: KernelFacts) -> list:
    """Per global store, per dimension ``d`` (0..2): None when the index is not affine in that dimension's
    ids, else ``[(id prefix, coefficient names, compiled coefficient)]`` (empty: no id of ``d``); made
    once per kernel (sympy), evaluated per launch."""
    if facts._strides is not None:
        return facts._strides
    import sympy as sp

    out = []
    for expr in facts.stores:
        try:
            expr = sp.expand(sp.sympify(expr))
            ids = {s for s in expr.free_symbols if s.name[:3] in _ID_PREFIXES and s.name[3:].isdigit()}
            per_dim = []
            for d in range(3):
                terms = []
                for s in sorted((s for s in ids if s.name.endswith(str(d))), key=lambda s: s.name):
                    coef = expr.coeff(s, 1)
                    if coef.free_symbols & ids or expr.coeff(s, 2) != 0:
                        terms = None  # not affine in the ids
                        break
                    names = sorted(x.name for x in coef.free_symbols)
                    syms = sorted(coef.free_symbols, key=lambda x: x.name)
                    terms.append((s.name[:3], names, sp.lambdify(syms, coef, modules="math")))
                per_dim.append(terms)
        except Exception:  # noqa: BLE001 - not a sympy expression: no signal
            continue
        out.append(per_dim)
    facts._strides = out
    return out


def _gap_dims(strides: list) -> float:
    """The fewest launch dimensions at which :func:`_stride_gaps` can find a gap: a store's index needs
    ids of two dimensions (its second such dimension + 1), affine in the ids of every dimension below
    (inf when no store has that).

    Args:
        strides: :func:`_store_strides` of the kernel.
    """
    out = math.inf
    for per_dim in strides:
        with_ids = [d for d, terms in enumerate(per_dim) if terms]
        if len(with_ids) >= 2 and all(per_dim[d] is not None for d in range(with_ids[1])):
            out = min(out, with_ids[1] + 1)
    return out


def _stride_gaps(strides: list, launch, env: dict) -> list[str]:
    out, seen = [], set()
    dims = len(launch.global_size)
    for per_dim in strides:
        try:
            parts = []
            for d in range(dims):
                terms = per_dim[d]
                if terms is None:
                    raise ValueError("not affine in the ids")
                if not terms:
                    continue
                step, span = math.inf, 0.0
                for prefix, names, fn in terms:
                    c = abs(float(fn(*(env[n] for n in names))))
                    size = {"gid": env[f"gsz{d}"], "lid": env[f"lsz{d}"], "grp": env[f"ngrp{d}"]}[prefix]
                    step = min(step, c)
                    span += c * (size - 1)
                parts.append((step, span + 1, d))
        except Exception:  # noqa: BLE001 - a symbol without a value, or not affine: no signal
            continue
        parts.sort()
        extent = 0.0  # elements the dimensions with smaller steps span together
        for step, span, d in parts:
            if extent and step > 1.5 * extent and (d, step) not in seen:
                seen.add((d, step))
                lower = [p[2] for p in parts if p[0] < step]
                out.append(f"dimension {d}: the stores step by {step:.0f} elements but dimension(s) "
                           f"{', '.join(map(str, lower))} of the launch cover only {extent:.0f} of them: about "
                           f"{extent / step:.1%} of each row of the output is written")
            extent = span if not extent else extent + span - 1
    return out
