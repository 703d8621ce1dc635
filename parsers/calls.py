"""Calls between the functions of a unit: which definition a call reaches, and the call errors a
device compiler refuses.

**Which definition** (:func:`callee`). C has one function per name. CUDA is C++: a source may add
overloads of a builtin name (``__device__ int4 abs(int4 v) { return make_int4(abs(v.x), ...); }``) or
of its own functions. A call reaches the definition of its name whose parameters fit the arguments:
same count, and each argument of known vector width (literals, declared names, swizzles ``v.x``/
``v.xy``, casts, ``make_int4``, subscripts of declared buffers, arithmetic of those) equal to the
parameter's width (neither OpenCL nor CUDA converts a scalar argument to a vector parameter). A name
defined once and not provided by the compiler reaches that definition without looking at arguments; a
call that fits no definition reaches the compiler's function when the name is one
(:meth:`Dialect.is_library`), else the last definition (as before overloads were told apart).

**Call errors** (:func:`check_calls`, dialect rules ``dialect.json`` ``calls``; C has none):

- ``undefined: error`` — a call ``f(...)`` of a plain name that is no function of the source, no
  builtin or library function of the dialect, no macro, no declared variable (function pointer,
  lambda) and no type (constructor): ``error: call to undefined function 'f'``; a name only declared
  by a prototype: ``error: function 'f' is declared but never defined``. When the source includes a
  header the dialect does not list as its own (``library.headers``), the function may come from there:
  the same messages are warnings.
- ``recursion: any`` (OpenCL C forbids recursion) — a call that closes a cycle of calls:
  ``error: recursive call of 'f' (f -> g -> f); OpenCL C does not allow recursion``.
  ``recursion: kernel`` (CUDA) — a plain call of a ``__global__`` function from device code.

Why errors: the device compilers refuse both (PoCL does not build them), and the static counts would
leave the callee out. Calls through members, scopes (``std::min``), templates and pointers are not
checked.
"""
from __future__ import annotations

import bisect
import re

import tree_sitter as ts

from kgraph.parsers.diagnostics import position
from kgraph.parsers.errors import Diagnostic
from kgraph.parsers.unit import Function, TranslationUnit

_SWIZZLE = re.compile(r"^(?:[xyzw]{1,4}|[rgba]{1,4}|s[0-9a-fA-F]{1,16})$")
_MAKE = re.compile(r"^(?:make|convert|as)_([a-z]+[0-9]*)(?:_sat)?(?:_rt[a-z]+)?$")
_ARITHMETIC = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}


# -- declared names ----------------------------------------------------------------------------
def _declarator_name(node: ts.Node) -> tuple[str, int, bool]:
    """(name, pointer/array depth, is a prototype) of a declarator node: a prototype names a function
    directly (``int f(int)``, ``int *f(int)``), a function pointer ``int (*f)(int)`` is a variable."""
    depth, parent = 0, ""
    while node is not None:
        t = node.type
        if t in ("identifier", "field_identifier", "type_identifier"):
            return node.text.decode("utf-8", "replace"), depth, parent == "function_declarator"
        if t in ("pointer_declarator", "array_declarator"):
            depth += 1
        parent = t
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith(("declarator", "identifier"))), None)
        node = nxt
    return "", depth, False


class _Declared:
    """What a unit declares besides its definitions: variables (name → (type spelling, depth)) by
    function (byte range of the body; globals under None), prototypes, and type names."""

    def __init__(self, unit: TranslationUnit):
        self.variables: dict[tuple | None, dict[str, tuple[str, int]]] = {None: {}}
        self.prototypes: set[str] = set()
        self.types: set[str] = set()
        bodies = sorted((f.body.start_byte, f.body.end_byte) for f in unit.functions)
        starts = [a for a, _ in bodies]
        for caps in unit.dialect.matches("declared", unit.tree.root_node):
            if "typename" in caps:
                self.types.add(_declarator_name(caps["typename"][0])[0])
                continue
            decl = caps["declarator"][0]
            name, depth, prototype = _declarator_name(decl)
            if not name:
                continue
            if prototype:
                self.prototypes.add(name)
                continue
            spelling = " ".join(caps["type"][0].text.decode("utf-8", "replace").split())
            k = bisect.bisect_right(starts, decl.start_byte) - 1  # the body holding it (bodies never nest)
            scope = bodies[k] if k >= 0 and decl.start_byte < bodies[k][1] else None
            self.variables.setdefault(scope, {}).setdefault(name, (spelling, depth))

    def names_in(self, fn: Function) -> dict[str, tuple[str, int]]:
        """Variables visible in ``fn``: its parameters and locals over the globals (first declaration wins)."""
        out = dict(self.variables[None])
        out.update(self.variables.get((fn.body.start_byte, fn.body.end_byte), {}))
        out.update({p.name: (p.base_type + (str(p.vector_width) if p.vector_width > 1 else ""), p.pointer_depth)
                    for p in fn.params if p.name})
        return out


def declared(unit: TranslationUnit) -> _Declared:
    """The unit's :class:`_Declared` (made once per unit and ``functions`` list)."""
    cached = unit._declared
    if cached is None or cached[0] is not unit.functions:
        cached = unit._declared = (unit.functions, _Declared(unit))
    return cached[1]


# -- argument shapes ---------------------------------------------------------------------------
def _type_width(unit: TranslationUnit, spelling: str) -> int | None:
    info = unit.dialect.type_info(spelling)
    return info.vector_width if info is not None else None


def arg_width(unit: TranslationUnit, names: dict, node: ts.Node | None) -> int | None:
    """Vector width of an argument expression when the syntax tells it (see the module doc), else None."""
    if node is None:
        return None
    t = node.type
    if t in ("number_literal", "char_literal", "true", "false"):
        return 1
    if t == "identifier":
        spelling, depth = names.get(node.text.decode("utf-8", "replace"), (None, 0))
        return _type_width(unit, spelling) if spelling is not None and depth == 0 else None
    if t in ("parenthesized_expression", "unary_expression"):
        inner = node.child_by_field_name("argument") if t == "unary_expression" else None
        inner = inner or (node.named_children[-1] if node.named_child_count else None)
        return arg_width(unit, names, inner)
    if t == "field_expression":
        field = node.child_by_field_name("field")
        text = field.text.decode() if field is not None else ""
        base = arg_width(unit, names, node.child_by_field_name("argument"))
        if base is not None and base > 1 and _SWIZZLE.match(text):
            return len(text) - 1 if text.startswith("s") else len(text)
        return None
    if t == "subscript_expression":
        base = node.child_by_field_name("argument")
        if base is not None and base.type == "identifier":
            spelling, depth = names.get(base.text.decode("utf-8", "replace"), (None, 0))
            return _type_width(unit, spelling) if spelling is not None and depth >= 1 else None
        return None
    if t == "cast_expression":
        tnode = node.child_by_field_name("type")
        text = tnode.text.decode("utf-8", "replace") if tnode is not None else ""
        return None if "*" in text else _type_width(unit, text)
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        m = _MAKE.match(fn.text.decode("utf-8", "replace")) if fn is not None and fn.type == "identifier" else None
        return _type_width(unit, m.group(1)) if m else None
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        a = arg_width(unit, names, node.child_by_field_name("left"))
        b = arg_width(unit, names, node.child_by_field_name("right"))
        if op is not None and op.type in _ARITHMETIC and a is not None and b is not None:
            return max(a, b)
        return None
    if t == "conditional_expression":
        return arg_width(unit, names, node.child_by_field_name("consequence"))
    return None


def _fits(fn: Function, widths: list[int | None]) -> bool:
    if len(fn.params) != len(widths):
        return False
    return all(w is None or p.is_pointer or p.vector_width == w for p, w in zip(fn.params, widths))


def _arguments(call: ts.Node) -> list[ts.Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in (args.named_children if args is not None else []) if a.type != "comment"]


def callee(unit: TranslationUnit, caller: Function | None, call: ts.Node) -> Function | None:
    """The function of ``unit`` a ``call_expression`` reaches (None: a builtin, a macro or unknown);
    ``caller`` is the function the call is written in (its declarations give argument widths)."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier":
        return None
    name = fn.text.decode("utf-8", "replace")
    candidates = unit.overloads().get(name)
    if not candidates:
        return None
    library = unit.dialect.is_library(name)
    if len(candidates) == 1 and not library:
        return candidates[0]
    names = declared(unit).names_in(caller) if caller is not None and caller.body is not None else {}
    widths = [arg_width(unit, names, a) for a in _arguments(call)]
    fitting = [c for c in candidates if _fits(c, widths)]
    if fitting:
        return fitting[0]
    return None if library else candidates[-1]


# -- checks ------------------------------------------------------------------------------------
def _diagnostic(unit: TranslationUnit, original: bytes, node: ts.Node, severity: str, message: str) -> Diagnostic:
    line, col = position(original, node.start_byte, node.start_point.row)
    return Diagnostic(unit.filename, line, col, severity, message)


def _unknown_headers(unit: TranslationUnit) -> list[str]:
    known = set(unit.dialect.tables.get("library", {}).get("headers", ()))
    return [h for h, _ in unit.includes if h not in known]


def call_edges(unit: TranslationUnit) -> dict[int, list[tuple[ts.Node, Function | None, str]]]:
    """Per function (index in ``unit.functions``): its calls of plain names as (call node, the function
    reached or None, name), in source order; CUDA launches ``k<<<...>>>(...)`` are not calls."""
    out = {}
    for i, fn in enumerate(unit.functions):
        edges = []
        for caps in unit.dialect.matches("calls", fn.body):
            call = caps["call"][0]
            if any(c.type == "kernel_call_syntax" for c in call.children):
                continue  # a CUDA launch `k<<<grid, block>>>(...)` from host code: not a call
            edges.append((call, callee(unit, fn, call), caps["callee"][0].text.decode("utf-8", "replace")))
        out[i] = edges
    return out


def check_calls(unit: TranslationUnit) -> list[Diagnostic]:
    """The call diagnostics of ``unit`` under its dialect's rules (module doc); [] when it has none."""
    rules = unit.dialect.call_rules
    if not rules or not unit.functions:
        return []
    original = unit.text.encode("utf-8")
    edges = call_edges(unit)
    out: list[Diagnostic] = []
    if rules.get("undefined"):
        out += _undefined(unit, original, edges, rules["undefined"])
    if rules.get("recursion") == "any":
        out += _cycles(unit, original, edges)
    elif rules.get("recursion") == "kernel":
        out += [_diagnostic(unit, original, call, "error",
                            f"kernel '{target.name}' called from device code (a __global__ function is "
                            f"launched with <<<...>>>, not called)")
                for i in edges for call, target, _ in edges[i] if target is not None and target.is_kernel]
    return out


def _undefined(unit: TranslationUnit, original: bytes, edges: dict, severity: str) -> list[Diagnostic]:
    decls = declared(unit)
    defined = unit.overloads()
    headers = _unknown_headers(unit)
    if headers:
        severity = "warning"
    hint = f" (it may come from '{headers[0]}', which is not read)" if headers else ""
    out = []
    for i, fn in enumerate(unit.functions):
        names = None
        for call, _, name in edges[i]:
            if name in defined or name in unit.macros or name in decls.types or unit.dialect.is_library(name) \
                    or unit.dialect.type_info(name) is not None:
                continue
            names = names if names is not None else decls.names_in(fn)
            if name in names:
                continue
            if name in decls.prototypes:
                message = f"function '{name}' is declared but never defined{hint}"
            else:
                message = f"call to undefined function '{name}'{hint}"
            out.append(_diagnostic(unit, original, call, severity, message))
    return out


def _cycles(unit: TranslationUnit, original: bytes, edges: dict) -> list[Diagnostic]:
    """One error per call that closes a cycle (a back edge of a depth-first walk), iteratively."""
    index = {id(f): i for i, f in enumerate(unit.functions)}
    state = [0] * len(unit.functions)  # 0 new, 1 on the walk's path, 2 done
    out: list[Diagnostic] = []
    for root in range(len(unit.functions)):
        if state[root]:
            continue
        path, stack = [root], [(root, iter(edges[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            call, target, _ = step
            j = index.get(id(target)) if target is not None else None
            if j is None:
                continue
            if state[j] == 1:
                cycle = [unit.functions[k].name for k in path[path.index(j):]] + [target.name]
                language = {"opencl": "OpenCL C"}.get(unit.lang, unit.lang)
                out.append(_diagnostic(unit, original, call, "error",
                                       f"recursive call of '{target.name}' ({' -> '.join(cycle)}); "
                                       f"{language} does not allow recursion"))
            elif state[j] == 0:
                state[j] = 1
                path.append(j)
                stack.append((j, iter(edges[j])))
    return out
