"""What the static analysis says about a launch that ``kgraph estimate`` reports next to the model:
exact FLOPs and bytes (:func:`static_counts`) and launches that do not cover the problem their scalar
arguments describe (:func:`coverage_warnings`).

Both use :func:`kgraph.analysis.analyze` once per kernel (:class:`KernelFacts`).

**Static counts.** The kernel's per-work-item counts evaluated at the launch (scalar arguments, global
and local sizes) times its work-items: ``flops = flops_fp32 + flops_fp64`` and ``bytes =
global_load_bytes + global_store_bytes`` (the model's ``flops``/``bytes`` targets). They replace the
model's where the analysis counts every statement exactly: every symbol has a value at the launch (no
``trip_<line>`` loop it could not count), every loop trip count is symbolic, the analysis left no
approximation note, and no branch depends on data: no ``if``/``while``/``for``/``?:``/``switch``
condition reads memory (an array subscript or a dereference) or a variable assigned from one, and no
``?:`` arm reads global memory (the analysis counts both arms). Conditions comparing two different
work-item ids (triangular kernels) are still weighed 1/2 by the analysis and not detected here.

**Coverage** (a heuristic; warnings only). Two signals, per NDRange dimension ``d`` of the launch:

* guards: the kernel's total work ``W`` (FLOPs + global bytes, ``trip_<line>`` symbols set to 1) is
  evaluated at the launch and with ``gsz_d`` (and ``ngrp_d``) multiplied by ``2**20``. A kernel whose
  guards (``if (i < n)``, ``if (row < M)``) bound the work grows by ``min(2**20, bound/gsz_d)``; one
  without guards by ``2**20`` (no information); a grid-stride loop not at all. A growth ``r`` with
  ``1.5 < r < 2**19`` means the guards allow ``r`` times the work-items launched: the launch covers
  ``1/r`` of the problem in dimension ``d``.
* row strides of stores: in the affine index of each global store, the part in dimension ``d``'s ids
  spans ``span_d`` elements at this launch and steps by ``step_d`` (its smallest coefficient). Sorting
  the dimensions by step, a step more than 1.5 times the span of the dimensions below it (``C[row * N +
  col]`` with 64 columns of work-items and ``N = 2048``) leaves gaps: each row of the output is only
  ``span/step`` covered. This catches unguarded kernels (the CUDA GEMM whose grid was given as
  ``--global``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

GROWTH = 2.0 ** 20
_CONDITION_PARENTS = ("if_statement", "while_statement", "do_statement", "for_statement", "switch_statement")
_ID_PREFIXES = ("gid", "lid", "grp")


@dataclass
class KernelFacts:
    """The static analysis of one kernel and whether its counts are exact (see the module doc)."""

    analysis: object = None
    exact: bool = False
    reason: str = ""
    stores: list = field(default_factory=list)  # sympy index expressions of the global stores


def kernel_facts(graph) -> KernelFacts:
    """Analyse ``graph``'s kernel (a ``KernelGraph``) once; never raises (no analysis: ``analysis`` None)."""
    try:
        from kgraph.analysis import analyze

        analysis = analyze(graph.function, graph.unit)
    except Exception as exc:  # noqa: BLE001 - no static facts: the model's numbers stand alone
        return KernelFacts(reason=f"no static analysis ({exc})")
    stores = [getattr(a, "index_expr", None) for a in analysis.accesses
              if a.space == "global" and a.kind == "store"]
    facts = KernelFacts(analysis, True, "", [s for s in stores if s is not None])
    if analysis.notes:
        facts.exact, facts.reason = False, "; ".join(analysis.notes)
    elif any(not lp.symbolic for lp in analysis.loops):
        facts.exact, facts.reason = False, "a loop trip count depends on data"
    else:
        why = data_dependent(graph.unit, graph.function)
        if why:
            facts.exact, facts.reason = False, why
    return facts


def _env(launch, global_size=None) -> dict:
    env = {k: float(v) for k, v in launch.args.items()}
    g = list(global_size if global_size is not None else launch.global_size)
    for d in range(3):
        gd = float(g[d]) if d < len(g) else 1.0
        ld = float(launch.local_size[d]) if d < len(launch.local_size) else 1.0
        env.update({f"gsz{d}": gd, f"lsz{d}": ld, f"ngrp{d}": gd / ld})
    return env


def static_counts(facts: KernelFacts, launch) -> dict | None:
    """``{"flops": ..., "bytes": ...}`` for the whole launch when the counts are exact, else None."""
    if facts.analysis is None or not facts.exact:
        return None
    try:
        per_item = facts.analysis.evaluate(_env(launch))
    except Exception:  # noqa: BLE001 - a symbol without a value (trip_<line>): not exact here
        return None
    items = math.prod(launch.global_size)
    flops = (per_item["flops_fp32"] + per_item["flops_fp64"]) * items
    nbytes = (per_item["global_load_bytes"] + per_item["global_store_bytes"]) * items
    if not (math.isfinite(flops) and math.isfinite(nbytes)):
        return None
    return {"flops": float(round(flops)), "bytes": float(round(nbytes))}


def _work(analysis, env: dict) -> float | None:
    env = dict(env)
    for name in analysis.symbols - set(analysis.resolve_env(env)):
        if name.startswith("trip_"):
            env[name] = 1.0
    try:
        c = analysis.evaluate(env)
    except Exception:  # noqa: BLE001
        return None
    items = env["gsz0"] * env["gsz1"] * env["gsz2"]
    w = (c["flops_fp32"] + c["flops_fp64"] + c["global_load_bytes"] + c["global_store_bytes"]) * items
    return w if math.isfinite(w) else None


def coverage_warnings(facts: KernelFacts, launch) -> list[str]:
    """Messages for dimensions of ``launch`` that cover only part of the problem (module doc)."""
    if facts.analysis is None:
        return []
    out = []
    base_env = _env(launch)
    base = _work(facts.analysis, base_env)
    dims = len(launch.global_size)
    for d in range(dims):
        if not base:
            break
        env = dict(base_env)
        env[f"gsz{d}"] *= GROWTH
        env[f"ngrp{d}"] *= GROWTH
        grown = _work(facts.analysis, env)
        if grown is None:
            continue
        r = grown / base
        if 1.5 < r < GROWTH / 2:
            g = launch.global_size[d]
            out.append(f"dimension {d}: the kernel's guards admit about {g * r:.0f} work-items but the launch has "
                       f"{g}: it covers about 1/{r:.0f} of the problem its scalar arguments describe")
    out.extend(_stride_gaps(facts, launch, base_env))
    return out


def _stride_gaps(facts: KernelFacts, launch, env: dict) -> list[str]:
    import sympy as sp

    out, seen = [], set()
    dims = len(launch.global_size)
    for expr in facts.stores:
        try:
            expr = sp.expand(sp.sympify(expr))
            ids = {s for s in expr.free_symbols if s.name[:3] in _ID_PREFIXES and s.name[3:].isdigit()}
            parts = []
            for d in range(dims):
                syms = [s for s in ids if s.name.endswith(str(d))]
                if not syms:
                    continue
                step, span = math.inf, 0.0
                for s in syms:
                    coef = expr.coeff(s, 1)
                    if coef.free_symbols & ids or expr.coeff(s, 2) != 0:
                        raise ValueError("not affine in the ids")
                    c = abs(float(coef.subs({x: env[x.name] for x in coef.free_symbols})))
                    size = {"gid": env[f"gsz{d}"], "lid": env[f"lsz{d}"], "grp": env[f"ngrp{d}"]}[s.name[:3]]
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


def data_dependent(unit, function) -> str:
    """Why the kernel's control flow depends on data (``""`` when it does not): see the module doc."""
    functions = [function] + [f for f in unit.functions if not f.is_kernel and f.body is not None]
    src = unit.source

    def text(n) -> str:
        return src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def reads_memory(n) -> bool:
        stack = [n]
        while stack:
            x = stack.pop()
            if x.type == "subscript_expression":
                return True
            if x.type == "pointer_expression" and x.child_by_field_name("operator") is not None \
                    and text(x.child_by_field_name("operator")) == "*":
                return True
            stack.extend(x.children)
        return False

    def names(n) -> set:
        out, stack = set(), [n]
        while stack:
            x = stack.pop()
            if x.type == "identifier":
                out.add(text(x))
            stack.extend(x.children)
        return out

    for fn in functions:
        tainted: set[str] = set()
        assigns = []
        stack = [fn.body]
        while stack:
            x = stack.pop()
            stack.extend(x.children)
            if x.type == "init_declarator" and x.child_by_field_name("value") is not None:
                decl = x.child_by_field_name("declarator")
                while decl is not None and decl.type != "identifier":
                    decl = decl.child_by_field_name("declarator")
                if decl is not None:
                    assigns.append((text(decl), x.child_by_field_name("value")))
            elif x.type == "assignment_expression" and x.child_by_field_name("left").type == "identifier":
                assigns.append((text(x.child_by_field_name("left")), x.child_by_field_name("right")))
        changed = True
        while changed:
            changed = False
            for name, value in assigns:
                if name not in tainted and (reads_memory(value) or names(value) & tainted):
                    tainted.add(name)
                    changed = True
        stack = [fn.body]
        while stack:
            x = stack.pop()
            stack.extend(x.children)
            cond = None
            if x.type in _CONDITION_PARENTS:
                cond = x.child_by_field_name("condition")
                if x.type == "switch_statement":
                    return f"line {x.start_point[0] + 1}: a switch"
            elif x.type == "conditional_expression":
                cond = x.child_by_field_name("condition")
                for arm in ("consequence", "alternative"):
                    a = x.child_by_field_name(arm)
                    if a is not None and reads_memory(a):
                        return f"line {x.start_point[0] + 1}: a ?: arm reads memory (the analysis counts both arms)"
            if cond is not None and (reads_memory(cond) or names(cond) & tainted):
                return f"line {x.start_point[0] + 1}: a condition depends on data"
    return ""
