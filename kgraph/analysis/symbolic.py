"""C integer expressions as sympy expressions over parameters, work sizes and work-item ids.

Symbols: scalar parameters by name; work sizes ``gsz0..2`` (global size), ``lsz0..2`` (local size),
``ngrp0..2`` (number of groups); work-item ids ``gid0..2``, ``lid0..2``, ``grp0..2`` (unknowns the
analysis averages over). Loop variables are ``<name>_L<line>``. Values the analysis cannot follow
become opaque symbols: ``v_<name>`` (a variable assigned more than once), ``ld_<buffer>`` (a value
loaded from memory: an index that contains one is *indirect*), ``call_<name>``, ``sel``.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from kgraph.analysis.context import node_text, subscript_index
from kgraph.analysis.ctype import from_literal
from kgraph.analysis.macros import MAX_DEPTH, expand_macro, function_macro
from kgraph.parsers.limits import MAX_CONSTANT_BITS

SIZE_OF_ID = {"gid": "gsz", "lid": "lsz", "grp": "ngrp"}
_KIND_PREFIX = {"global_id": "gid", "local_id": "lid", "group_id": "grp", "global_size": "gsz",
                "local_size": "lsz", "num_groups": "ngrp"}
OPAQUE_PREFIXES = ("v_", "ld_", "call_", "sel", "trip_")

# Bounding builtins (name -> (arity, value)): their value is a Min/Max nest of the arguments, which
# :mod:`kgraph.analysis.footprint` reads as a clamp. OpenCL ``clamp(x, lo, hi)`` is ``min(max(x, lo), hi)``.
BOUNDING_BUILTINS = {
    "min": (2, sp.Min), "fmin": (2, sp.Min), "umin": (2, sp.Min),
    "max": (2, sp.Max), "fmax": (2, sp.Max), "umax": (2, sp.Max),
    "clamp": (3, lambda x, lo, hi: sp.Min(sp.Max(x, lo), hi)),
}
_COMPARISONS = (">", ">=", "<", "<=")


@lru_cache(maxsize=None)
def work_symbol(prefix: str, dim: int) -> sp.Symbol:
    """``gid0`` .. ``ngrp2``; sizes are positive integers, ids non-negative integers."""
    if prefix in SIZE_OF_ID:
        return sp.Symbol(f"{prefix}{dim}", integer=True, nonnegative=True)
    return sp.Symbol(f"{prefix}{dim}", integer=True, positive=True)


def param_symbol(name: str, integer: bool = True) -> sp.Symbol:
    return sp.Symbol(name, integer=True) if integer else sp.Symbol(name, real=True)


class floor_log2(sp.Function):
    """``floor(log2(x))`` computed exactly for rationals (halving/doubling loop trip counts)."""

    @classmethod
    def eval(cls, x):
        if x.is_Rational and x > 0:
            p, q = int(x.p), int(x.q)
            k = p.bit_length() - q.bit_length()
            return sp.Integer(k if (p >> k if k >= 0 else p << -k) >= q else k - 1)
        return None


class clip01(sp.Function):
    """``Min(1, Max(0, x))``: the fraction of work-items passing a guard whose bound depends on an open
    loop's variable, kept as one function so that the loop can sum it exactly over its iterations
    (:func:`sum_over_affine`) or, where it cannot, drop the clipping (:func:`unclip`). It never leaves
    the analysis (:func:`unclip` at the end turns any left into ``Min``/``Max``)."""

    @classmethod
    def eval(cls, x):
        if x.is_number:
            return sp.Min(1, sp.Max(0, x))
        if x.is_nonpositive:
            return sp.Integer(0)
        return None


def unclip(expr, sym=None, keep=False):
    """``expr`` with each :class:`clip01` (whose argument holds ``sym``; any when None) replaced by its
    argument, or by ``Min(1, Max(0, x))`` when ``keep``."""
    if not isinstance(expr, sp.Basic) or not expr.has(clip01):
        return expr
    return expr.replace(lambda e: isinstance(e, clip01) and (sym is None or sym in e.args[0].free_symbols),
                        lambda e: sp.Min(1, sp.Max(0, e.args[0])) if keep else e.args[0])


def _clipped_sum(alpha, beta, trips):
    """``sum(clip01(alpha*t + beta) for t in range(trips))`` in closed form, for ``alpha > 0``: ``a`` terms
    are <= 0, ``b`` are < 1 (so ``b - a`` lie in (0, 1), linear), the other ``trips - b`` are 1."""
    a = sp.Min(trips, sp.Max(0, sp.floor(-beta / alpha) + 1))
    b = sp.Min(trips, sp.Max(0, sp.ceiling((1 - beta) / alpha)))
    return (trips - b) + (b - a) * beta + alpha * (b * (b - 1) - a * (a - 1)) / 2


def sum_over_affine(expr, sym, start, step, trips):
    """Sum of ``expr`` over ``sym = start + step*t``, ``t`` in ``[0, trips)``, or None when a term is not
    ``c * clip01(p*sym + q)`` (``c``, ``p``, ``q`` free of ``sym``, the sign of ``p*step`` known) nor free
    of :class:`clip01` of ``sym``. Terms without it are summed at the mean of ``sym`` (exact when linear)."""
    total = sp.Integer(0)
    mean = start + step * (trips - 1) / 2
    for term in sp.Add.make_args(sp.expand(expr)):
        clips = [f for f in sp.Mul.make_args(term) if isinstance(f, clip01) and sym in f.args[0].free_symbols]
        if not clips:
            total += trips * term.subs(sym, mean)
            continue
        if len(clips) != 1:
            return None
        coef = term / clips[0]
        arg = sp.expand(clips[0].args[0])
        p = sp.diff(arg, sym)
        if sym in coef.free_symbols or sym in p.free_symbols:
            return None
        alpha, beta = sp.expand(p * step), sp.expand(arg.subs(sym, start))
        if alpha.is_positive:
            total += coef * _clipped_sum(alpha, beta, trips)
        elif alpha.is_negative:
            total += coef * _clipped_sum(-alpha, beta + alpha * (trips - 1), trips)
        elif alpha.is_zero:
            total += coef * trips * clip01(beta)
        else:
            return None
    return total


def ceil_log2(x):
    """``ceiling(log2(x))`` for x >= 1, through :class:`floor_log2` (exact)."""
    return floor_log2(2 * x - 1) if x.is_integer else -floor_log2(1 / x)


def _exact(text: str):
    """The exact rational of a decimal/float literal text (``0.25`` -> 1/4); no ``nsimplify`` guessing."""
    try:
        return sp.Rational(text.rstrip("fFhHlL"))
    except (TypeError, ValueError):
        return sp.Float(float(text.rstrip("fFhHlL")))


def tidy(expr):
    """A cheap canonical form of a count (sums of products, like terms merged); no ``simplify``.

    ``expand`` is linear in the size of count expressions (sums of products of trip counts and
    fractions); when it grows the expression (a product of long sums) the original is kept.
    """
    expr = sp.sympify(expr)
    if expr.is_Atom:
        return expr
    expanded = sp.expand(expr)
    return expanded if sp.count_ops(expanded) <= 2 * sp.count_ops(expr) + 4 else expr


def is_opaque(expr) -> bool:
    return any(s.name.startswith(OPAQUE_PREFIXES) for s in getattr(expr, "free_symbols", ()))


def id_symbols(expr) -> set:
    return {s for s in getattr(expr, "free_symbols", ()) if s.name[:-1] in SIZE_OF_ID and s.name[-1].isdigit()}


def normalize_ids(expr):
    """Rewrite ``grp*lsz + lid`` as ``gid`` (and ``lsz*ngrp`` as ``gsz``) where that removes ``grp``."""
    expr = sp.sympify(expr)
    for d in range(3):
        lid, grp, gid = work_symbol("lid", d), work_symbol("grp", d), work_symbol("gid", d)
        lsz, ngrp, gsz = work_symbol("lsz", d), work_symbol("ngrp", d), work_symbol("gsz", d)
        if ngrp in expr.free_symbols and lsz in expr.free_symbols:
            cand = sp.expand(expr.subs(ngrp, gsz / lsz))
            if lsz not in cand.free_symbols:
                expr = cand
        if lid in expr.free_symbols and grp in expr.free_symbols:
            cand = sp.expand(expr.subs(lid, gid - grp * lsz))
            if grp not in cand.free_symbols:
                expr = cand
    return expr


def average_over_ids(expr):
    """Replace each work-item id by its mean over the NDRange (id uniform in [0, size))."""
    subs = {s: (work_symbol(SIZE_OF_ID[s.name[:-1]], int(s.name[-1])) - 1) / 2 for s in id_symbols(expr)}
    return expr.subs(subs) if subs else expr


class SymbolicEnv:
    """Symbolic values of the names visible in a function, filled while ``analyze`` walks it.

    Args:
        ctx: the function's :class:`~kgraph.analysis.context.Context`.
        multi_assigned: names assigned more than once (never given a value).
    """

    def __init__(self, ctx, multi_assigned: set):
        self.ctx = ctx
        self.multi_assigned = multi_assigned
        self.values: dict[str, sp.Expr] = {}
        self.pointers: set[str] = set()
        self.macro_depth = 0
        self.helper_stack: tuple = ()  # ids of the helpers whose value is being computed (no recursion)
        self.helper_values: dict = {}  # (id of helper, argument values) -> value, shared with nested envs
        for p in ctx.function.params:
            if p.is_pointer:
                self.pointers.add(p.name)
            else:
                self.values[p.name] = param_symbol(p.name, p.base_type not in ("float", "double", "half"))

    def bind(self, name: str, expr) -> None:
        self.values[name] = expr

    def to_sympy(self, node):
        """The sympy value of an integer/index expression node (opaque symbols where unknown)."""
        if node is None:
            return sp.Symbol("sel")
        t = node.type
        text = node_text(node)
        if t == "number_literal":
            ct = from_literal(text)
            clean = text.rstrip("uUlLfFhH") if not text.lower().startswith("0x") else text.rstrip("uUlL")
            try:
                return sp.Integer(int(clean, 0)) if not ct.is_float else _exact(clean)
            except ValueError:
                return sp.Symbol("sel")
        if t == "identifier":
            return self._identifier(text)
        if t in ("parenthesized_expression", "condition_clause"):
            return self.to_sympy(node.named_children[-1]) if node.named_child_count else sp.Symbol("sel")
        if t == "cast_expression":
            return self.to_sympy(node.child_by_field_name("value"))
        if t == "field_expression":
            b = self.ctx.dialect.builtin(text.replace(" ", ""))
            if b is not None and b.category == "work_item":
                return self._work_item(b.kind, b.dim)
            return sp.Symbol("v_" + text.replace(".", "_").replace("->", "_"))
        if t == "subscript_expression":
            base = node.child_by_field_name("argument")
            return sp.Symbol("ld_" + node_text(base).split("[")[0].strip())
        if t == "pointer_expression":
            return sp.Symbol("ld_" + node_text(node.child_by_field_name("argument")))
        if t == "unary_expression":
            op = node_text(node.child_by_field_name("operator"))
            v = self.to_sympy(node.child_by_field_name("argument"))
            return -v if op == "-" else (v if op == "+" else sp.Symbol("sel"))
        if t == "binary_expression":
            return self._binary(node)
        if t == "call_expression":
            return self._call(node)
        if t == "conditional_expression":
            return self._conditional(node)
        return sp.Symbol("sel")

    def to_sympy_name(self, name: str):
        """Sympy value of a variable by name (a buffer is 0, a pointer variable its offset)."""
        return self._identifier(name)

    def _identifier(self, name: str):
        if name in self.pointers:
            return sp.Integer(0)  # a buffer is offset 0 of itself
        if name in self.values:
            return self.values[name]
        macro = self.ctx.macros.get(name)
        if macro is not None and isinstance(macro.value, (int, float)) and not isinstance(macro.value, bool):
            return sp.Integer(macro.value) if isinstance(macro.value, int) else _exact(repr(macro.value))
        b = self.ctx.dialect.builtin(name)
        if b is not None and b.category == "work_item" and b.dim is not None:
            return self._work_item(b.kind, b.dim)
        return sp.Symbol("v_" + name)

    def _work_item(self, kind: str, dim):
        if kind == "global_offset":
            return sp.Integer(0)
        if dim is None or kind not in _KIND_PREFIX:
            return sp.Symbol("sel")
        return work_symbol(_KIND_PREFIX[kind], int(dim))

    def _binary(self, node):
        op = node_text(node.child_by_field_name("operator"))
        a = self.to_sympy(node.child_by_field_name("left"))
        b = self.to_sympy(node.child_by_field_name("right"))
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if a.is_Integer and b.is_Integer and b != 0:
                return sp.Integer(int(a) // int(b))
            if b == 0:
                return sp.Symbol("sel")
            # C integer division truncates: floor for the non-negative sizes and indices seen here
            return sp.floor(a / b) if a.is_integer and b.is_integer else a / b
        if op == "%":
            return sp.Mod(a, b) if b != 0 else sp.Symbol("sel")
        if op in ("<<", ">>") and b.is_Integer:
            n = int(b)
            if not 0 <= n < MAX_CONSTANT_BITS:  # undefined in C (and 2**n would not end): an unknown value
                return sp.Symbol("sel")
            return a * 2 ** n if op == "<<" else (a / 2 ** n if not a.is_Integer else sp.Integer(int(a) >> n))
        return sp.Symbol("sel")

    def _call(self, node):
        fn = node_text(node.child_by_field_name("function"))
        args_node = node.child_by_field_name("arguments")
        args = list(args_node.named_children) if args_node is not None else []
        b = self.ctx.dialect.builtin(fn)
        if b is not None and b.category == "work_item":
            dim = self.to_sympy(args[0]) if args else sp.Integer(0)
            return self._work_item(b.kind, int(dim) if dim.is_Integer else None)
        macro = function_macro(self.ctx, fn) if self.macro_depth < MAX_DEPTH else None
        expansion = expand_macro(self.ctx, macro, [node_text(a) for a in args]) if macro is not None else None
        if expansion is not None:
            self.macro_depth += 1
            try:
                return self.to_sympy(expansion)
            finally:
                self.macro_depth -= 1
        vals = [self.to_sympy(a) for a in args]
        helper = self.ctx.callee(node)
        if helper is not None:
            value = self._helper_value(helper, vals)
            return value if value is not None else sp.Symbol("call_" + fn)
        bounding = BOUNDING_BUILTINS.get(fn)
        if bounding is not None and bounding[0] == len(vals):
            return bounding[1](*vals)
        if fn.startswith(("convert_", "as_")) and len(vals) == 1:
            return vals[0]
        return sp.Symbol("call_" + fn)

    def _helper_value(self, helper, vals):
        """The value of a call of a helper whose body is a single ``return e;`` (scalar parameters only):
        ``e`` with the parameters bound to the arguments; None otherwise, and for a helper whose value
        is being computed (recursion). Values are kept per (helper, arguments): a helper called many
        times with the same arguments, or calling others several times, is evaluated once each."""
        from kgraph.analysis.context import Context

        body = helper.body
        stmts = [c for c in (body.named_children if body is not None else []) if c.type != "comment"]
        if (self.macro_depth >= MAX_DEPTH or id(helper) in self.helper_stack or len(stmts) != 1
                or stmts[0].type != "return_statement" or not stmts[0].named_children
                or len(helper.params) != len(vals) or any(p.is_pointer for p in helper.params)):
            return None
        key = (id(helper), tuple(vals))
        if key not in self.helper_values:
            env = SymbolicEnv(Context(helper, self.ctx.unit), set())
            env.macro_depth = self.macro_depth + 1
            env.helper_stack = self.helper_stack + (id(helper),)
            env.helper_values = self.helper_values
            for p, v in zip(helper.params, vals):
                env.bind(p.name, v)
            self.helper_values[key] = env.to_sympy(stmts[0].named_children[0])
        return self.helper_values[key]

    def _conditional(self, node):
        """``c ? r : s`` as ``Max(r, s)``/``Min(r, s)`` when the integer comparison ``c`` tests which arm is
        larger (``x < 0 ? 0 : x``, ``x >= n ? n - 1 : x``); else the opaque ``sel``."""
        cond = node.child_by_field_name("condition")
        while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count:
            cond = cond.named_children[-1]
        if cond is None or cond.type != "binary_expression":
            return sp.Symbol("sel")
        op = node_text(cond.child_by_field_name("operator"))
        if op not in _COMPARISONS:
            return sp.Symbol("sel")
        left, right = self.to_sympy(cond.child_by_field_name("left")), self.to_sympy(cond.child_by_field_name("right"))
        r = self.to_sympy(node.child_by_field_name("consequence"))
        s = self.to_sympy(node.child_by_field_name("alternative"))
        if not all(getattr(v, "is_integer", None) for v in (left, right, r, s)):
            return sp.Symbol("sel")
        # the condition as  sign * (left - right) >= c  (integers), the arms' difference  e = r - s
        d = sp.expand(left - right)
        c = {">=": 0, ">": 1, "<=": 0, "<": 1}[op]
        if op in ("<", "<="):
            d = -d
        e = sp.expand(r - s)
        for sign, pick in ((1, sp.Max), (-1, sp.Min)):
            m = sp.expand(d - sign * e)
            # cond  <=>  sign*e >= c - m: with c - m in {0, 1} the true arm r is the larger (sign 1) or
            # the smaller (sign -1) of the two, ties being equal values
            if m.is_Integer and int(c - m) in (0, 1):
                return pick(r, s)
        return sp.Symbol("sel")


def subscript_index_expr(env: SymbolicEnv, node):
    """Sympy value of the index of a subscript node."""
    return env.to_sympy(subscript_index(node))


def assigned_names(node) -> dict:
    """How many times each identifier is assigned in ``node`` (declarations with initialisers,
    ``=``/compound assignments, ``++``/``--``)."""
    out: dict[str, int] = {}
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        elif n.type == "init_declarator":
            target = n.child_by_field_name("declarator")
        if target is not None and target.type == "identifier":
            name = node_text(target)
            out[name] = out.get(name, 0) + 1
        stack.extend(n.named_children)
    return out


def _declares(node, name: str) -> bool:
    """Whether a ``declaration`` node declares ``name``."""
    for d in node.children_by_field_name("declarator"):
        while d is not None and d.type != "identifier":
            d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_child_count else None)
        if d is not None and node_text(d) == name:
            return True
    return False


def assignments_of(node, name: str) -> int:
    """How many times the variable ``name`` visible at ``node`` is assigned in it: as
    :func:`assigned_names`, but a nested declaration of ``name`` starts another variable, so the rest
    of its block (or the ``for`` statement declaring it) is not counted (shadowing)."""
    count, stack = 0, [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "for_statement":
            init = n.child_by_field_name("initializer")
            if init is not None and init.type == "declaration" and _declares(init, name):
                continue
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is not None and target.type == "identifier" and node_text(target) == name:
            count += 1
        children = n.named_children
        if n.type == "compound_statement":
            cut = next((i for i, c in enumerate(children) if c.type == "declaration" and _declares(c, name)), None)
            if cut is not None:
                children = children[:cut]
        stack.extend(children)
    return count
