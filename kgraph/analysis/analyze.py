"""analyze(): per-work-item counts of a kernel as sympy expressions.

Every statement's one-execution counts come from :func:`statement_costs`; this module multiplies them
by how often the statement runs per work-item: loop trip counts (:mod:`kgraph.analysis.loops`),
branch fractions (:mod:`kgraph.analysis.guards`; non-guard conditions weigh each arm 1/2) and early
``return`` guards (statements after ``if (gid >= n) return;`` run for the fraction that stays).
A ``for`` condition runs trip+1 times, its update trip times. Helper calls are inlined (their analysis,
parameters replaced by the call's arguments), with a recursion guard. A loop body that depends on
the loop variable is evaluated at the variable's mean (affine loops: exact for linear dependence) or
summed over the iterations (halving/doubling loops).
"""
from __future__ import annotations

import sympy as sp

from kgraph.analysis.context import Context, condition_value, is_boolean, node_text
from kgraph.analysis.counts import COUNT_KEYS, add_into, zero_counts
from kgraph.analysis.assignments import multi_assigned
from kgraph.analysis.branches import share
from kgraph.analysis.inline import inline_call
from kgraph.analysis.guards import early_exit, guard_atoms, guard_fraction, guard_ranges
from kgraph.analysis.loops import Loop, for_loop, while_loop
from kgraph.analysis.patterns import classify
from kgraph.analysis.result import Access, KernelAnalysis
from kgraph.analysis.statements import statement_costs, statement_key
from kgraph.analysis.symbolic import (SymbolicEnv, assigned_names, average_over_ids, clip01, id_symbols,
                                      sum_geometric, sum_over_affine, sum_polynomial, tidy, unclip)



def analyze(function, unit, shares: dict | None = None) -> KernelAnalysis:
    """Static analysis of ``function`` (a kernel or helper of ``unit``): see docs/ANALYSIS.md. ``shares``: line ->
    the given share (a sympy number) of a branch the analysis cannot decide, else 1/2 (:mod:`kgraph.analysis.branches`).
    """
    return _Analyzer(function, unit, (id(function),), shares).run()


class _Analyzer:
    def __init__(self, function, unit, stack: tuple, shares: dict | None = None):
        self.function, self.unit, self.stack, self.shares = function, unit, stack, shares
        self.branches: set[int] = set()  # lines of the branches weighed by a share (given or the prior)
        self.entries = {s.key: s for s in statement_costs(function, unit)}
        self.ctx = Context(function, unit)
        multi = multi_assigned(function.body)
        self.env = SymbolicEnv(self.ctx, multi)
        self.loops: list[Loop] = []
        self.open_loops: list[int] = []
        self.loop_symbols: dict[sp.Symbol, Loop] = {}
        self.accesses: list[Access] = []
        self.notes: list[str] = []
        self.weight = sp.Integer(1)
        self.helpers: dict[int, KernelAnalysis] = {}  # by id of the helper's Function (overloads share names)
        self.declared: dict[str, tuple] = {}  # name -> (initialiser node, open loops at the declaration)
        self.bool_aliases: dict = {}  # boolean locals set once -> their expression (see declare)
        self.assigned = assigned_names(function.body)
        self.conditions: list[tuple] = []  # (condition node, negated) of the enclosing ifs / early returns

    def start_value(self, name: str, loop_node):
        """The value ``name`` has when ``loop_node`` starts: its declared initialiser, when every other
        assignment of it is inside the loop and the declaration runs each time the loop is reached."""
        init, loops = self.declared.get(name, (None, None))
        if init is None or loops != tuple(self.open_loops):
            return None
        if self.assigned.get(name, 0) != assigned_names(loop_node).get(name, 0) + 1:
            return None
        return self.env.to_sympy(init)

    def declare(self, name: str, value) -> None:
        """Record ``name``'s value where it is set (its initialiser, or its one assignment). A local whose one
        assignment sets it to a comparison or a logical expression (``const bool inside = gx < nx && gy < ny;``)
        is also a boolean alias: a guard reads ``inside`` as that expression."""
        self.declared[name] = (value, tuple(self.open_loops))
        if value is not None and self.assigned.get(name, 0) == 1 and is_boolean(condition_value(value)):
            self.bool_aliases[name] = value
        else:
            self.bool_aliases.pop(name, None)

    def run(self) -> KernelAnalysis:
        counts = self.block(self.function.body.named_children) if self.function.body is not None else zero_counts()
        final = {}
        for k in COUNT_KEYS:
            final[k] = tidy(average_over_ids(unclip(sp.sympify(counts[k]), keep=True)))
        for a in self.accesses:
            a.executions = average_over_ids(unclip(sp.sympify(a.executions), keep=True))
        params = [p.name for p in self.function.params if not p.is_pointer]
        return KernelAnalysis(self.function.name, self.unit.lang, final, self.loops, self.accesses, params, self.notes,
                              sorted(self.branches))

    def share(self, node):
        """The weight of the undecided branch ``node`` (an ``if``): its line's given share, else 1/2."""
        self.branches.add(node.start_point[0] + 1)
        return share(node.start_point[0] + 1, self.shares)

    # -- statements -----------------------------------------------------------------------------
    def block(self, children) -> dict:
        acc, factor = zero_counts(), sp.Integer(1)
        saved, depth = self.weight, len(self.conditions)
        for child in children:
            work = early_exit(child)
            if work is None:
                add_into(acc, self.statement(child), factor)
                continue
            # if (c) [{ work; }] return;: the rest of the block runs where c is false, at 1 - p
            cond = child.child_by_field_name("condition")
            frac = guard_fraction(cond, self.env, self.loop_symbols, self.bool_aliases)
            undecided, frac = frac is None, self.share(child) if frac is None else frac
            if work:  # the arm is counted as any if's
                add_into(acc, self.statement(child), factor)
            else:
                add_into(acc, self.entry(condition_value(cond), "if_cond"), factor)
                if undecided:
                    self.notes.append(f"line {child.start_point[0] + 1}: early return on a non-guard condition: {frac}")
            factor = factor * (1 - frac)
            self.weight = saved * factor
            self.conditions.append((cond, True))
        self.weight = saved
        del self.conditions[depth:]
        return acc

    def statement(self, node) -> dict:
        t = node.type
        if t == "compound_statement":
            return self.block(node.named_children)
        if t in ("declaration", "expression_statement", "return_statement"):
            out = self.entry(node, "stmt")
            if t == "declaration":
                self.ctx.declare(node)
            elif t == "expression_statement":
                self.bind_assignment(node)
            return out
        if t == "if_statement":
            return self.if_statement(node)
        if t == "for_statement":
            return self.for_statement(node)
        if t in ("while_statement", "do_statement"):
            return self.while_statement(node)
        if t == "switch_statement":
            cond = condition_value(node.child_by_field_name("condition"))
            acc = self.entry(cond, "if_cond")
            cases = [c for c in node.child_by_field_name("body").named_children if c.type == "case_statement"]
            self.conditions.append((None, False))  # a case: not a guard the footprint can bound
            for case in cases:
                body = [c for c in case.named_children if c.type.endswith("statement") or c.type == "declaration"]
                add_into(acc, self.weighted(lambda b=body: self.block(b), sp.Rational(1, max(1, len(cases)))))
            self.conditions.pop()
            return acc
        if t == "labeled_statement":
            return self.block(node.named_children[1:])
        return zero_counts()

    def with_id_ranges(self, make_loop):
        """``make_loop()`` with ``env.id_ranges`` = the id intervals of the guards in force: a trip count that
        depends on an id is averaged over the ids that reach the loop (the guard's fraction is counted apart)."""
        self.env.id_ranges = guard_ranges(self.conditions, self.env, self.loop_symbols, self.bool_aliases)
        try:
            return make_loop()
        finally:
            self.env.id_ranges = None

    def weighted(self, fn, w) -> dict:
        saved = self.weight
        self.weight = saved * w
        try:
            out = fn()
        finally:
            self.weight = saved
        return {k: w * v for k, v in out.items()}

    def if_statement(self, node) -> dict:
        cond = node.child_by_field_name("condition")
        acc = self.entry(condition_value(cond), "if_cond")
        frac = guard_fraction(cond, self.env, self.loop_symbols, self.bool_aliases)
        frac = self.share(node) if frac is None else frac
        self.conditions.append((cond, False))
        add_into(acc, self.weighted(lambda: self.statement(node.child_by_field_name("consequence")), frac))
        self.conditions.pop()
        alt = node.child_by_field_name("alternative")
        if alt is not None:
            arm = alt.named_children[0] if alt.type == "else_clause" and alt.named_child_count else alt
            self.conditions.append((cond, True))
            add_into(acc, self.weighted(lambda: self.statement(arm), 1 - frac))
            self.conditions.pop()
        return acc

    def for_statement(self, node) -> dict:
        acc = zero_counts()
        init = node.child_by_field_name("initializer")
        if init is not None:
            add_into(acc, self.entry(init, "loop_init"))
        loop = self.with_id_ranges(lambda: for_loop(node, self.env, lambda name: self.start_value(name, node)))
        return self.loop_body(node, loop, acc, node.child_by_field_name("condition"),
                              node.child_by_field_name("update"), cond_extra=1)

    def while_statement(self, node) -> dict:
        kind = "while" if node.type == "while_statement" else "do"
        loop = self.with_id_ranges(lambda: while_loop(node, self.env, lambda name: self.start_value(name, node)))
        return self.loop_body(node, loop, zero_counts(), condition_value(node.child_by_field_name("condition")),
                              None, cond_extra=1 if kind == "while" else 0)

    def loop_body(self, node, loop: Loop, acc: dict, cond, update, cond_extra: int) -> dict:
        pragma = getattr(self.unit, "pragmas", {}).get(node.start_byte)
        loop.unroll = getattr(pragma, "value", None) if pragma is not None else None
        loop.depth = len(self.open_loops)
        loop.parent = self.open_loops[-1] if self.open_loops else -1
        self.loops.append(loop)
        if loop.mean:  # a mean trip count (a bisection's): the counts are not exact
            self.notes.append(f"line {loop.line}: {loop.note}")
        self.open_loops.append(len(self.loops) - 1)
        sym, previous = None, None
        if loop.var and loop.symbolic:
            sym = sp.Symbol(f"{loop.var}_L{loop.line}", integer=True)
            previous = self.env.values.get(loop.var)
            self.env.bind(loop.var, sym)
            self.loop_symbols[sym] = loop
        first_access = len(self.accesses)
        body = self.weighted(lambda: self.statement(node.child_by_field_name("body")), 1)
        per_iter = zero_counts()
        add_into(per_iter, body)
        if update is not None:
            add_into(per_iter, self.entry(update, "loop_update"))
        if cond is not None:
            add_into(acc, self.entry(cond, "loop_cond"), cond_extra)
            add_into(per_iter, self.entry(cond, "loop_cond"))
        for k in COUNT_KEYS:
            acc[k] = acc[k] + self.over_iterations(sp.sympify(per_iter[k]), loop, sym)
        for a in self.accesses[first_access:]:
            a.executions = self.over_iterations(sp.sympify(a.executions), loop, sym)
        if sym is not None:
            del self.loop_symbols[sym]
            if previous is None:
                self.env.values.pop(loop.var, None)
            else:
                self.env.bind(loop.var, previous)
        self.open_loops.pop()
        return acc

    def over_iterations(self, expr, loop: Loop, sym):
        """Sum of ``expr`` over the loop's iterations (``expr`` may depend on the loop variable)."""
        if sym is None or sym not in expr.free_symbols:
            return loop.trip * expr
        if not loop.geometric and loop.raw_trip == loop.trip and expr.has(clip01):  # guards on the variable
            exact = sum_over_affine(expr, sym, loop.start, loop.step, loop.trip)
            if exact is not None:
                return exact
        expr = unclip(expr, sym)
        if loop.geometric:
            ratio = sp.Rational(1, 2) if loop.note.startswith("geometric (halving") else 2
            return sum_geometric(expr, sym, loop.start, ratio, loop.trip)
        mean = loop.start + loop.step * (loop.trip - 1) / 2
        exact = sum_polynomial(expr, sym, loop.start, loop.step, loop.trip)
        if exact is not None:
            return exact
        return loop.trip * expr.subs(sym, mean)

    # -- one statement --------------------------------------------------------------------------
    def entry(self, node, kind: str) -> dict:
        s = self.entries.get(statement_key(node, kind)) if node is not None else None
        if s is None:
            return zero_counts()
        out = dict(s.counts)
        for site in s.accesses:
            self.record_access(site)
        for call in s.calls:
            add_into(out, self.inline(call))
        if kind in ("stmt", "loop_init") and node.type == "declaration":
            self.bind_declaration(node)
        return out

    def bind_declaration(self, decl) -> None:
        for d in decl.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                continue
            target = d.child_by_field_name("declarator")
            while target is not None and target.type != "identifier":
                target = target.child_by_field_name("declarator")
            if target is None:
                continue
            name = node_text(target)
            self.declare(name, d.child_by_field_name("value"))
            if name not in self.env.multi_assigned:
                self.env.bind(name, self.env.to_sympy(d.child_by_field_name("value")))

    def bind_assignment(self, stmt) -> None:
        """``name = value;`` for a variable assigned nowhere else (``int h; h = get_global_id(2) + 1;``):
        ``name`` takes the value, as an initialiser would give it. Not when the value depends on an
        open loop's variable (the name outlives the loop)."""
        expr = stmt.named_children[0] if stmt.named_child_count else None
        if expr is None or expr.type != "assignment_expression" or node_text(expr.child_by_field_name("operator")) != "=":
            return
        target = expr.child_by_field_name("left")
        name = node_text(target) if target is not None and target.type == "identifier" else ""
        if not name or self.assigned.get(name, 0) != 1 or name in self.env.pointers:
            return
        value = expr.child_by_field_name("right")
        symbolic = self.env.to_sympy(value)
        if set(self.loop_symbols) & getattr(symbolic, "free_symbols", set()):
            return
        self.declare(name, value)
        self.env.bind(name, symbolic)

    def record_access(self, site) -> None:
        index = self.index_expr(site)
        pattern, stride = classify(self.at_first_iteration(index))
        text = "".join(f"[{node_text(i)}]" for i in site.indices) if site.indices else node_text(site.index)
        self.accesses.append(Access(site.buffer, site.space, site.kind, site.bytes, " ".join(text.split()),
                                    site.node.start_point[0] + 1, pattern, stride, self.weight, self.function.name))
        self.accesses[-1].index_expr = index
        self.accesses[-1].scale = site.scale
        self.accesses[-1].context = self.access_context()

    def access_context(self) -> dict:
        """Where an access runs, for :mod:`kgraph.analysis.footprint`: the enclosing loops (outer first)
        and the id guards in force (``(id, op, bound)``; ``None`` for a condition that is not one)."""
        loops = [(sym, lp, None) for sym, lp in self.loop_symbols.items()]
        opaque = [self.loops[i] for i in self.open_loops if not self.loops[i].symbolic or not self.loops[i].var]
        return {"loops": loops, "guards": guard_atoms(self.conditions, self.env, self.loop_symbols, self.bool_aliases),
                "opaque_loops": [lp.line for lp in opaque],
                "exits": [self.loops[i].line for i in self.open_loops if "'break'" in self.loops[i].note]}

    def at_first_iteration(self, expr):
        """``expr`` with each open loop's variable at its start value (its work-item dependence)."""
        if expr is None:
            return None
        for sym in sorted(self.loop_symbols, key=lambda s: -self.loop_symbols[s].depth):
            loop = self.loop_symbols[sym]
            if loop.start is not None:
                expr = expr.subs(sym, loop.start)
        return expr

    def index_expr(self, site):
        if site.indices:
            var = self.ctx.scope.lookup(site.buffer)
            dims = [self.unit.fold(t) if hasattr(self.unit, "fold") else None for t in (var.dims if var else ())]

            def size(dim):
                return sp.Integer(dim) if isinstance(dim, int) else sp.Symbol("v_dim")

            # row-major: index i strides by the product of dims[i + 1:] (suffix products, linear time)
            n = len(site.indices)
            stride = sp.Integer(1)
            for dim in dims[n:]:
                stride *= size(dim)
            strides = [stride] * n
            for i in range(n - 1, 0, -1):
                if i < len(dims):
                    stride *= size(dims[i])
                strides[i - 1] = stride
            expr = sp.Integer(0)
            for idx, stride in zip(site.indices, strides):
                expr += self.env.to_sympy(idx) * stride
            return expr
        if site.index is None:
            return None
        base = self.env.to_sympy_name(site.pointer) if site.pointer else sp.Integer(0)
        if site.node.type == "pointer_expression":
            return self.env.to_sympy(site.index)
        return base / site.scale + self.env.to_sympy(site.index)

    def inline(self, call) -> dict:
        """The counts of a helper call, its analysis inlined (:func:`kgraph.analysis.inline.inline_call`)."""
        return inline_call(self, call, lambda callee: _Analyzer(callee, self.unit, self.stack + (id(callee),),
                                                                self.shares).run())
